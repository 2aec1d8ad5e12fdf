//! The boilerplate every area's `Dispatch` shares, written once (issue
//! 57, "one shape for every area"): the enum with one variant per backend
//! and its one `match` ([`backend_enum!`]), the token constructors named
//! after the backends ([`constructors!`]), and `best()`/`all()` over them
//! ([`best_and_all!`]). An area lists its backends once, grouped by
//! architecture; another architecture's variants are configured out before
//! type checking, so their types are named but never resolved.
#![forbid(unsafe_code)]

/// Defines the enum `$name` (with the attributes `$attr`), one variant per
/// backend each holding that backend's value — the `x86_64` ones, then the
/// `aarch64` ones, each under its `cfg(target_arch)`, then the `portable`
/// one
/// — and the macro `$on_backend!(value, k => body)`: `body` with `k` bound
/// to the backend value `value` holds (`value` followed by the tokens
/// `$proj`, e.g. `(.0)` where the enum is a public struct's field), one arm
/// per backend, each compiled for its backend's type.
///
/// `$d` is a `$` token (the caller writes `$`), so that the inner macro
/// can name its own metavariables.
macro_rules! backend_enum {
    (
        $d:tt $on_backend:ident $(($($proj:tt)*))?;
        $(#[$attr:meta])*
        $vis:vis enum $name:ident {
            $(x86_64: $($(#[$xm:meta])* $xv:ident($xt:ty)),+;)?
            $(aarch64: $($(#[$am:meta])* $av:ident($at:ty)),+;)?
            portable: $(#[$pm:meta])* $pv:ident($pt:ty) $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $($($(#[$xm])* #[cfg(target_arch = "x86_64")] $xv($xt),)+)?
            $($($(#[$am])* #[cfg(target_arch = "aarch64")] $av($at),)+)?
            $(#[$pm])* $pv($pt),
        }

        macro_rules! $on_backend {
            ($d value:expr, $d k:ident => $d body:expr) => {
                match $d value $($($proj)*)? {
                    $($(#[cfg(target_arch = "x86_64")] $name::$xv($d k) => $d body,)+)?
                    $($(#[cfg(target_arch = "aarch64")] $name::$av($d k) => $d body,)+)?
                    $name::$pv($d k) => $d body,
                }
            };
        }
    };
}
pub(crate) use backend_enum;

/// Inherent constructors of `$dispatch` (a public struct around the enum
/// `$kind`, [`backend_enum!`]), one per backend: `$ctor()` is the backend
/// `$make(t)` in the variant `$variant` if the capability token `$token`
/// is usable (`t`), on `$arch` (always `None` on other targets).
macro_rules! constructors {
    ($dispatch:ident($kind:ident):
        $($(#[$doc:meta])* $arch:literal $ctor:ident: $variant:ident($make:expr) if $token:ty;)+
    ) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $ctor() -> Option<$dispatch> {
            #[cfg(target_arch = $arch)]
            if let Some(t) = <$token>::get() {
                return Some($dispatch($kind::$variant(($make)(t))));
            }
            None
        }
    )+};
}
pub(crate) use constructors;

/// `best()` (the first usable of the constructors `$first, $rest…`, else
/// `$portable()`) and `all()` (every usable one, best first) of
/// `$dispatch`, as inherent functions.
macro_rules! best_and_all {
    ($dispatch:ident: $first:ident $(, $rest:ident)*; $portable:ident) => {
        /// The fastest backend usable on this CPU under the cap.
        ///
        /// # Panics
        ///
        /// On first use, if `FIELDWORK_MAX_ISA` is set to an unknown level.
        #[inline]
        pub fn best() -> $dispatch {
            $dispatch::$first()
                $(.or_else($dispatch::$rest))*
                .unwrap_or_else($dispatch::$portable)
        }

        /// Every backend usable on this CPU under the cap, best first:
        #[doc = concat!("[`", stringify!($dispatch), "::best`]")]
        /// and the slower ones this CPU runs too, for differential tests
        /// and benchmarks.
        pub fn all() -> impl Iterator<Item = $dispatch> {
            $dispatch::$first()
                .into_iter()
                $(.chain($dispatch::$rest()))*
                .chain(core::iter::once($dispatch::$portable()))
        }
    };
}
pub(crate) use best_and_all;
