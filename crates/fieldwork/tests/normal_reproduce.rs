//! placeholder
#![cfg(feature = "reproduce")]
