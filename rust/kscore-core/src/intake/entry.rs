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
    /// The element equal to category `v`, if this type can hold it (so that
    /// category counts are plain equality tests in the native type).
    fn from_category(v: u32) -> Option<Self>;

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

    /// Count the categories `0..out.len()` of a contiguous run with a
    /// type-specific fast path; `None` if there is none for this run.
    #[inline]
    fn count_categories(_xs: &[Self], _out: &mut [u32]) -> Option<bool> {
        None
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

/// Category counts of a contiguous run, for one-byte types.
#[inline]
fn byte_categories<T: Copy>(xs: &[T], out: &mut [u32]) -> Option<bool> {
    (out.len() <= 16).then(|| crate::intake::bytes::count_categories(as_bytes(xs), out))
}

/// Category counts of a contiguous run of a wider integer type: a block at a
/// time is narrowed to bytes (values above 254, negative ones included,
/// saturate to 255, never one of the at most 16 categories) and counted by
/// the SSE2 byte path, which is several times faster than one equality pass
/// per category in the wide type.
#[inline]
fn narrowed_categories<T: Entry>(xs: &[T], out: &mut [u32]) -> Option<bool> {
    const BLOCK: usize = 1024;
    if out.len() > 16 {
        return None;
    }
    let mut bytes = [0u8; BLOCK];
    let mut part = [0u32; 16];
    let part = &mut part[..out.len()];
    out.fill(0);
    let mut ok = true;
    for chunk in xs.chunks(BLOCK) {
        let b = &mut bytes[..chunk.len()];
        for (d, &x) in b.iter_mut().zip(chunk) {
            *d = x.lane();
        }
        ok &= crate::intake::bytes::count_categories(b, part);
        for (o, &p) in out.iter_mut().zip(part.iter()) {
            *o += p;
        }
    }
    Some(ok)
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
    #[inline(always)]
    fn from_category(v: u32) -> Option<Self> {
        (v <= 1).then_some(v == 1)
    }
    #[inline]
    fn sum_or(xs: &[Self]) -> (u64, u64) {
        crate::intake::bytes::sum_or(as_bytes(xs))
    }
    #[inline]
    fn count_categories(xs: &[Self], out: &mut [u32]) -> Option<bool> {
        byte_categories(xs, out)
    }
}

macro_rules! signed_entry {
    ($t:ty, $u:ty, bytes) => {
        signed_entry!($t, $u, #[inline] fn sum_or(xs: &[Self]) -> (u64, u64) {
            crate::intake::bytes::sum_or(as_bytes(xs))
        }, #[inline] fn count_categories(xs: &[Self], out: &mut [u32]) -> Option<bool> {
            byte_categories(xs, out)
        });
    };
    ($t:ty, $u:ty, wide) => {
        signed_entry!($t, $u, const WIDE: bool = true;, #[inline(always)] fn wide(self) -> u64 {
            (self as $u) as u64
        }, #[inline] fn count_categories(xs: &[Self], out: &mut [u32]) -> Option<bool> {
            narrowed_categories(xs, out)
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
            #[inline(always)]
            fn from_category(v: u32) -> Option<Self> {
                <$t>::try_from(v).ok()
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
        }, #[inline] fn count_categories(xs: &[Self], out: &mut [u32]) -> Option<bool> {
            byte_categories(xs, out)
        });
    };
    ($t:ty, wide) => {
        unsigned_entry!($t, const WIDE: bool = true;, #[inline(always)] fn wide(self) -> u64 {
            self as u64
        }, #[inline] fn count_categories(xs: &[Self], out: &mut [u32]) -> Option<bool> {
            narrowed_categories(xs, out)
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
            #[inline(always)]
            fn from_category(v: u32) -> Option<Self> {
                <$t>::try_from(v).ok()
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
            fn from_category(v: u32) -> Option<Self> {
                // Exact while v < 2^24 (f32) / 2^53 (f64); wider categories
                // take the table path, which never calls this.
                let x = v as $t;
                (x as u32 == v).then_some(x)
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
    fn categories_convert_exactly() {
        assert_eq!(bool::from_category(1), Some(true));
        assert_eq!(bool::from_category(2), None);
        assert_eq!(i8::from_category(127), Some(127));
        assert_eq!(i8::from_category(128), None);
        assert_eq!(u8::from_category(255), Some(255));
        assert_eq!(f32::from_category(7), Some(7.0));
        assert_eq!(f32::from_category(16_777_217), None);
        assert_eq!(f64::from_category(3), Some(3.0));
    }
}
