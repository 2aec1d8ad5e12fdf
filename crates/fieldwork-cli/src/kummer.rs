//! `fieldwork kummer`: Kummer-surface Diffie–Hellman from the command line.
//!
//! - `fieldwork kummer keygen [--secret HEX]` — a key pair: 32 fresh random
//!   bytes from the operating system (or the given secret), printed with its
//!   48-byte public key.
//! - `fieldwork kummer shared --secret HEX --public HEX` — the 48-byte shared
//!   secret with a peer's public key (which is validated first).
//!
//! Keys are hex in memory byte order (the format of the library and of the
//! reference software). Bad hex, a wrong length, an invalid public key or a
//! rejected result is an error message and a non-zero exit code.

// Input parsing: no `[]` index or slice that could panic (issue 27).
#![warn(clippy::indexing_slicing)]

use clap::{Args, Subcommand};
use fieldwork::kummer::{PublicKey, SecretKey};
use std::io::Read;

/// Options of `fieldwork kummer`.
#[derive(Args, Debug)]
pub struct KummerArgs {
    #[command(subcommand)]
    command: KummerCommand,
}

#[derive(Subcommand, Debug)]
enum KummerCommand {
    /// Make a key pair: print the secret key (32 bytes) and public key (48 bytes) in hex.
    Keygen {
        /// Use this secret key (64 hex digits) instead of 32 random bytes from the OS.
        #[arg(long, value_name = "HEX")]
        secret: Option<String>,
    },
    /// Print the shared secret (48 bytes, hex) of a secret key and a peer's public key.
    Shared {
        /// Your secret key: 64 hex digits.
        #[arg(long, value_name = "HEX")]
        secret: String,
        /// The peer's public key: 96 hex digits.
        #[arg(long, value_name = "HEX")]
        public: String,
    },
}

/// Runs `fieldwork kummer …`; the error is the message to print.
pub fn run(args: &KummerArgs) -> Result<(), String> {
    match &args.command {
        KummerCommand::Keygen { secret } => {
            let sk = match secret {
                Some(hex) => SecretKey::from_bytes(parse_hex::<32>("--secret", hex)?),
                None => SecretKey::from_bytes(os_random_secret()?),
            };
            println!("secret: {}", to_hex(sk.as_bytes()));
            println!("public: {}", to_hex(sk.public_key().as_bytes()));
            Ok(())
        }
        KummerCommand::Shared { secret, public } => {
            let sk = SecretKey::from_bytes(parse_hex::<32>("--secret", secret)?);
            let pk = PublicKey::from_bytes(&parse_hex::<48>("--public", public)?)
                .map_err(|e| format!("--public: {e}"))?;
            let shared = sk.diffie_hellman(&pk).map_err(|e| e.to_string())?;
            println!("{}", to_hex(shared.as_bytes()));
            Ok(())
        }
    }
}

/// 32 bytes from the operating system's generator (`/dev/urandom`), with
/// the 5 top bits the ladder does not use cleared.
fn os_random_secret() -> Result<[u8; 32], String> {
    const SOURCE: &str = "/dev/urandom";
    let mut bytes = [0u8; 32];
    std::fs::File::open(SOURCE)
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| {
            format!("cannot read random bytes from {SOURCE}: {e} (give a key with --secret)")
        })?;
    bytes[31] &= 0x07;
    Ok(bytes)
}

/// Exactly `N` bytes from `2N` hex digits (either case).
fn parse_hex<const N: usize>(what: &str, text: &str) -> Result<[u8; N], String> {
    if let Some((at, c)) = text
        .chars()
        .enumerate()
        .find(|(_, c)| !c.is_ascii_hexdigit())
    {
        return Err(format!(
            "{what}: {c:?} at position {at} is not a hex digit (expected 0-9, a-f or A-F)"
        ));
    }
    // All ASCII from here: bytes are characters.
    let digits = text.as_bytes();
    if digits.len() != 2 * N {
        return Err(format!(
            "{what}: expected {} hex digits ({N} bytes), got {}",
            2 * N,
            digits.len()
        ));
    }
    let mut out = [0u8; N];
    for (byte, &[hi, lo]) in out.iter_mut().zip(digits.as_chunks::<2>().0) {
        *byte = (hex_value(hi) << 4) | hex_value(lo);
    }
    Ok(out)
}

/// The value of an ASCII hex digit (checked by the caller; anything else is 0).
fn hex_value(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip_and_errors() {
        assert_eq!(parse_hex::<2>("x", "0aFf"), Ok([0x0a, 0xff]));
        assert_eq!(to_hex(&[0x0a, 0xff]), "0aff");
        assert!(
            parse_hex::<2>("x", "0af")
                .unwrap_err()
                .contains("expected 4")
        );
        assert!(
            parse_hex::<2>("x", "0ag0")
                .unwrap_err()
                .contains("position 2")
        );
        assert!(
            parse_hex::<2>("x", "0a0g")
                .unwrap_err()
                .contains("position 3")
        );
        // Multi-byte characters: an error, not a panic on a char boundary.
        assert!(parse_hex::<2>("x", "é0a").is_err());
        assert!(parse_hex::<2>("x", "éé").is_err());
    }

    #[test]
    fn os_secret_is_random_and_masked() {
        let (a, b) = (os_random_secret().unwrap(), os_random_secret().unwrap());
        assert_ne!(a, b);
        assert_eq!(a[31] & 0xf8, 0);
    }
}
