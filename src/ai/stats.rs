//! The little statistics the arena reports.

use std::fmt;

/// A sample mean with its 95% confidence interval (normal approximation,
/// which is sound for the hundreds of samples the arena plays).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub n: usize,
    pub mean: f64,
    /// Half the width of the 95% interval: the truth lies within
    /// `mean ± half_width` with 95% confidence.
    pub half_width: f64,
}

impl Estimate {
    /// ```
    /// use kozyr::ai::Estimate;
    /// let e = Estimate::of(&[1.0, 0.0, 1.0, 0.0]);
    /// assert_eq!(e.mean, 0.5);
    /// assert!((e.half_width - 1.96 * (1.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-12);
    /// assert_eq!(Estimate::of(&[]).n, 0);
    /// ```
    pub fn of(samples: &[f64]) -> Estimate {
        let n = samples.len();
        if n == 0 {
            return Estimate {
                n,
                mean: f64::NAN,
                half_width: f64::NAN,
            };
        }
        let mean = samples.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            f64::INFINITY
        };
        Estimate {
            n,
            mean,
            half_width: 1.96 * (var / n as f64).sqrt(),
        }
    }

    pub fn low(&self) -> f64 {
        self.mean - self.half_width
    }

    pub fn high(&self) -> f64 {
        self.mean + self.half_width
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = f.precision().unwrap_or(3);
        write!(
            f,
            "{:.p$} ± {:.p$} (95% CI {:.p$} – {:.p$}, n = {})",
            self.mean,
            self.half_width,
            self.low(),
            self.high(),
            self.n
        )
    }
}

/// The `q`-quantile (0.0–1.0) of `sorted` by the nearest-rank method.
///
/// ```
/// use kozyr::ai::percentile;
/// let v: Vec<u32> = (1..=100).collect();
/// assert_eq!(percentile(&v, 0.5), Some(50));
/// assert_eq!(percentile(&v, 0.99), Some(99));
/// assert_eq!(percentile::<u32>(&[], 0.5), None);
/// ```
pub fn percentile<T: Copy>(sorted: &[T], q: f64) -> Option<T> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}
