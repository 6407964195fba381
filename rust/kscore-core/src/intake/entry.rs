//! The element types an outcome matrix may hold, and how each is read.
//!
//! Every dtype is read in place: `bin` is the fast path (a value that is 0 or
//! 1 maps to itself, anything else to a number > 1, so one OR over a row tells
//! whether the row was binary), `small` maps a valid category, and `check`
//! is the slow path that names the first kind of flaw, in scorio's order.

/// Why an entry is not a valid outcome, in the order scorio reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Flaw {
    NonFinite = 0,
    NonInteger = 1,
    OutOfInt64 = 2,
}

pub trait Entry: Copy + PartialEq + Send + Sync + 'static {
    /// 0 or 1 for a binary entry, a value > 1 for anything else.
    fn bin(self) -> u64;
    /// The value as a category index if it is an integer in `0..u32::MAX`.
    fn small(self) -> Option<u32>;
    /// The value as an i64, or the flaw that stops it being a valid entry.
    fn check(self) -> Result<i64, Flaw>;

    /// Whether `wide` is available (integer types wider than a byte).
    const WIDE: bool = false;
    /// The value as a u64 (negative values wrap to huge ones). Integer
    /// types only.
    #[inline(always)]
    fn wide(self) -> u64 {
        u64::MAX
    }
    /// The value as a byte, saturated: 0..=254 map to themselves, anything
    /// else (negative values included) to 255.
    #[inline(always)]
    fn lane(self) -> u8 {
        self.wide().min(255) as u8
    }

    /// A contiguous run as bytes for `intake::planes`, and an OR that is
    /// below 256 only if every entry is a byte value: one-byte types are
    /// borrowed in place (OR 0), floats saturated by `lane` (OR 0), and
    /// wider integers truncated, their OR taken over the full values (a
    /// plain truncation vectorises; a saturating one does not).
    #[inline(always)]
    fn lanes<'a>(xs: &'a [Self], buf: &'a mut [u8]) -> (&'a [u8], u64) {
        let bytes = &mut buf[..xs.len()];
        for (d, &x) in bytes.iter_mut().zip(xs) {
            *d = x.lane();
        }
        (bytes, 0)
    }

    /// Sum and OR of the `bin` values of a contiguous run (one-byte types
    /// override this with the SIMD row sum of `bytes`).
    #[inline]
    fn sum_or(xs: &[Self]) -> (u64, u64) {
        let mut sum = 0u64;
        let mut or = 0u64;
        for &x in xs {
            let v = x.bin();
            sum = sum.wrapping_add(v);
            or |= v;
        }
        (sum, or)
    }
}

/// The low bytes of a run of wider integers, and the OR of the full values.
#[inline(always)]
fn truncated_lanes<'a, T: Entry>(xs: &'a [T], buf: &'a mut [u8]) -> (&'a [u8], u64) {
    let bytes = &mut buf[..xs.len()];
    let mut or = 0u64;
    for (d, &x) in bytes.iter_mut().zip(xs) {
        *d = x.wide() as u8;
        or |= x.wide();
    }
    (bytes, or)
}

/// The bytes of a slice of a one-byte type whose every bit pattern is a
/// valid u8 (bool, i8, u8).
#[inline(always)]
fn as_bytes<T: Copy>(xs: &[T]) -> &[u8] {
    debug_assert_eq!(std::mem::size_of::<T>(), 1);
    // SAFETY: T is one byte wide, so the slice covers the same memory as u8s.
    unsafe { std::slice::from_raw_parts(xs.as_ptr() as *const u8, xs.len()) }
}

impl Entry for bool {
    #[inline(always)]
    fn bin(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn small(self) -> Option<u32> {
        Some(self as u32)
    }
    #[inline(always)]
    fn check(self) -> Result<i64, Flaw> {
        Ok(self as i64)
    }
    #[inline]
    fn sum_or(xs: &[Self]) -> (u64, u64) {
        crate::intake::bytes::sum_or(as_bytes(xs))
    }
    #[inline(always)]
    fn lanes<'a>(xs: &'a [Self], _buf: &'a mut [u8]) -> (&'a [u8], u64) {
        (as_bytes(xs), 0)
    }
}

macro_rules! signed_entry {
    ($t:ty, $u:ty, bytes) => {
        signed_entry!($t, $u, #[inline] fn sum_or(xs: &[Self]) -> (u64, u64) {
            crate::intake::bytes::sum_or(as_bytes(xs))
        }, #[inline(always)] fn lanes<'a>(xs: &'a [Self], _buf: &'a mut [u8]) -> (&'a [u8], u64) {
            (as_bytes(xs), 0)
        });
    };
    ($t:ty, $u:ty, wide) => {
        signed_entry!($t, $u, const WIDE: bool = true;, #[inline(always)] fn wide(self) -> u64 {
            (self as $u) as u64
        }, #[inline(always)] fn lanes<'a>(xs: &'a [Self], buf: &'a mut [u8]) -> (&'a [u8], u64) {
            truncated_lanes(xs, buf)
        });
    };
    ($t:ty, $u:ty $(, $extra:item)*) => {
        impl Entry for $t {
            $($extra)*
            #[inline(always)]
            fn bin(self) -> u64 {
                // Negative values wrap to large unsigned ones, so they fail `<= 1`.
                (self as $u) as u64
            }
            #[inline(always)]
            fn small(self) -> Option<u32> {
                u32::try_from(self).ok()
            }
            #[inline(always)]
            fn check(self) -> Result<i64, Flaw> {
                Ok(self as i64)
            }
        }
    };
}
signed_entry!(i8, u8, bytes);
signed_entry!(i16, u16, wide);
signed_entry!(i32, u32, wide);
signed_entry!(i64, u64, wide);

macro_rules! unsigned_entry {
    ($t:ty, bytes) => {
        unsigned_entry!($t, #[inline] fn sum_or(xs: &[Self]) -> (u64, u64) {
            crate::intake::bytes::sum_or(as_bytes(xs))
        }, #[inline(always)] fn lanes<'a>(xs: &'a [Self], _buf: &'a mut [u8]) -> (&'a [u8], u64) {
            (as_bytes(xs), 0)
        });
    };
    ($t:ty, wide) => {
        unsigned_entry!($t, const WIDE: bool = true;, #[inline(always)] fn wide(self) -> u64 {
            self as u64
        }, #[inline(always)] fn lanes<'a>(xs: &'a [Self], buf: &'a mut [u8]) -> (&'a [u8], u64) {
            truncated_lanes(xs, buf)
        });
    };
    ($t:ty $(, $extra:item)*) => {
        impl Entry for $t {
            $($extra)*
            #[inline(always)]
            fn bin(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn small(self) -> Option<u32> {
                u32::try_from(self).ok()
            }
            #[inline(always)]
            fn check(self) -> Result<i64, Flaw> {
                i64::try_from(self).map_err(|_| Flaw::OutOfInt64)
            }
        }
    };
}
unsigned_entry!(u8, bytes);
unsigned_entry!(u16, wide);
unsigned_entry!(u32, wide);
unsigned_entry!(u64, wide);

macro_rules! float_entry {
    ($t:ty) => {
        impl Entry for $t {
            #[inline(always)]
            fn bin(self) -> u64 {
                // 0.0 and -0.0 are 0; 1.0 is 1; everything else (NaN too) is 2.
                if self == 0.0 {
                    0
                } else if self == 1.0 {
                    1
                } else {
                    2
                }
            }
            #[inline(always)]
            fn small(self) -> Option<u32> {
                if (0.0..4294967296.0).contains(&self) && self == self.trunc() {
                    Some(self as u32)
                } else {
                    None
                }
            }
            #[inline(always)]
            fn check(self) -> Result<i64, Flaw> {
                if !self.is_finite() {
                    Err(Flaw::NonFinite)
                } else if self != self.trunc() {
                    Err(Flaw::NonInteger)
                } else if (self as f64) < -9223372036854775808.0 || (self as f64) >= 9223372036854775808.0 {
                    Err(Flaw::OutOfInt64)
                } else {
                    Ok(self as i64)
                }
            }
            #[inline(always)]
            fn lane(self) -> u8 {
                // Categories 0..=254 map to themselves, anything else to 255.
                // Clamping first (NaN clamps to -1) makes the conversion a
                // plain vector truncation, and the round trip replaces
                // `trunc` (a library call without SSE4.1); the loop
                // vectorises, where a saturating `as` does not.
                let y = self.max(-1.0).min(255.0);
                // SAFETY: y is finite and in [-1, 255], so it fits an i32.
                let i: i32 = unsafe { y.to_int_unchecked() };
                if i as $t == self && (i as u32) < 255 {
                    i as u8
                } else {
                    255
                }
            }
        }
    };
}
float_entry!(f32);
float_entry!(f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bin_flags_everything_but_zero_and_one() {
        assert_eq!(true.bin(), 1);
        assert!((-1i8).bin() > 1);
        assert!((-1i64).bin() > 1);
        assert!(2u64.bin() > 1);
        assert_eq!((-0.0f64).bin(), 0);
        assert!(f64::NAN.bin() > 1);
        assert!(0.5f32.bin() > 1);
    }

    #[test]
    fn classify_orders_flaws() {
        assert_eq!(f64::INFINITY.check(), Err(Flaw::NonFinite));
        assert_eq!(0.5f64.check(), Err(Flaw::NonInteger));
        assert_eq!(1e19f64.check(), Err(Flaw::OutOfInt64));
        assert_eq!((-9223372036854775808.0f64).check(), Ok(i64::MIN));
        assert_eq!(u64::MAX.check(), Err(Flaw::OutOfInt64));
        assert_eq!((-3i16).check(), Ok(-3));
    }

    #[test]
    fn lanes_keep_categories_and_flag_the_rest() {
        let mut buf = [0u8; 8];
        let (bytes, or) = i64::lanes(&[0, 3, 254, 255, -1, 1 << 40], &mut buf);
        assert_eq!(bytes, &[0, 3, 254, 255, 255, 0]);
        assert!(or >= 1 << 40);
        assert_eq!(u16::lanes(&[0, 3, 7], &mut buf), (&[0u8, 3, 7][..], 7));
        let floats = [0.0, -0.0, 7.0, 0.5, -1.0, f64::NAN, 254.0, 1e300];
        assert_eq!(
            f64::lanes(&floats, &mut buf),
            (&[0u8, 0, 7, 255, 255, 255, 254, 255][..], 0)
        );
        assert_eq!(i8::lanes(&[1, -1], &mut buf), (&[1u8, 255][..], 0));
        assert_eq!(bool::lanes(&[true, false], &mut buf), (&[1u8, 0][..], 0));
    }
}
