//! A hypergeometric count's distribution where it is not negligible.

use crate::alloc;
use crate::error::Error;

/// What the standardized mutual information's buffers are called when refused.
pub(super) const BUFFERS: &str = "the standardized mutual information's distributions";

/// Probabilities below this fraction of their distribution's mode are left out.
pub(super) const CUT: f64 = 1.0 / (1u64 << 56) as f64;

/// A hypergeometric count's probabilities from `lo`, normalized, where they are at least
/// [`CUT`] of the mode's.
#[derive(Debug, Clone)]
pub(super) struct Window {
    pub(super) lo: u64,
    pub(super) p: Vec<f64>,
}

impl Window {
    pub(super) fn hi(&self) -> u64 {
        self.lo + self.p.len() as u64 - 1
    }
}

/// The count of white samples among `draws` drawn from `total`, `white` of them white.
pub(super) fn window(draws: u64, white: u64, total: u64) -> Result<Window, Error> {
    let lo = (draws + white).saturating_sub(total);
    let hi = draws.min(white);
    let mode = ((u128::from(draws) + 1) * (u128::from(white) + 1) / (u128::from(total) + 2)) as u64;
    let m = mode.clamp(lo, hi);
    let (d, w, black) = (draws as f64, white as f64, (total - white) as f64);
    // The ratios of consecutive probabilities, outward from the mode.
    let mut up = Vec::new();
    let (mut v, mut x) = (1.0, m);
    while x < hi {
        let xf = x as f64;
        v *= (w - xf) * (d - xf) / ((xf + 1.0) * (black - d + xf + 1.0));
        if v < CUT {
            break;
        }
        alloc::push(&mut up, v, BUFFERS)?;
        x += 1;
    }
    let mut down = Vec::new();
    let (mut v, mut x) = (1.0, m);
    while x > lo {
        let xf = x as f64;
        v *= xf * (black - d + xf) / ((w - xf + 1.0) * (d - xf + 1.0));
        if v < CUT {
            break;
        }
        alloc::push(&mut down, v, BUFFERS)?;
        x -= 1;
    }
    let mut p = alloc::with_capacity(down.len() + 1 + up.len(), BUFFERS)?;
    p.extend(down.iter().rev());
    p.push(1.0);
    p.extend(&up);
    let total_p: f64 = p.iter().sum();
    p.iter_mut().for_each(|q| *q /= total_p);
    Ok(Window {
        lo: m - down.len() as u64,
        p,
    })
}
