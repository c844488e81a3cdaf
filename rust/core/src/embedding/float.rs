//! The two element types of an embedding, `f32` and `f64`: what the kernels ask of them.

use std::ops::{Add, Mul, Sub};

/// An embedding's element type. Distances are computed in it (float32 in float32, as a
/// float32 GEMM does); every sum over samples is kept in `f64`.
pub(crate) trait Float:
    Copy
    + Send
    + Sync
    + Default
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + 'static
{
    const ZERO: Self;
    fn to_f64(self) -> f64;
    fn from_f64(x: f64) -> Self;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
}

impl Float for f32 {
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f32::abs(self)
    }
}

impl Float for f64 {
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_f64(x: f64) -> Self {
        x
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f64::abs(self)
    }
}
