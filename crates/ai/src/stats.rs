//! The little statistics the arena reports.

use std::fmt;

/// 1.96: the normal quantile of a two-sided 95% interval.
const Z95: f64 = 1.96;

/// A sample mean with its 95% confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    pub n: usize,
    pub mean: f64,
    /// The interval's ends: the truth lies in `low..=high` with 95% confidence.
    pub low: f64,
    pub high: f64,
}

impl Estimate {
    /// The mean of `samples` with the normal approximation's interval,
    /// which is sound for the hundreds of samples the arena plays.
    ///
    /// ```
    /// use kozyr_ai::Estimate;
    /// let e = Estimate::of(&[1.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(e.mean, 2.5);
    /// let half = 1.96 * (5.0f64 / 3.0).sqrt() / 2.0;
    /// assert!((e.high - e.mean - half).abs() < 1e-12);
    /// assert!(Estimate::of(&[]).mean.is_nan());
    /// ```
    pub fn of(samples: &[f64]) -> Estimate {
        let n = samples.len();
        if n == 0 {
            return Estimate {
                n,
                mean: f64::NAN,
                low: f64::NAN,
                high: f64::NAN,
            };
        }
        let mean = samples.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            f64::INFINITY
        };
        let half = Z95 * (var / n as f64).sqrt();
        Estimate {
            n,
            mean,
            low: mean - half,
            high: mean + half,
        }
    }

    /// A share of successes with the Wilson score interval, which stays
    /// honest near 0 and 1 where the normal approximation collapses.
    ///
    /// ```
    /// use kozyr_ai::Estimate;
    /// let e = Estimate::share(400, 400);
    /// assert_eq!(e.mean, 1.0);
    /// assert!(e.low > 0.99 && e.low < 1.0 && e.high == 1.0);
    /// let half = Estimate::share(50, 100);
    /// assert!((half.low - 0.4038).abs() < 1e-3);
    /// ```
    pub fn share(successes: usize, n: usize) -> Estimate {
        if n == 0 {
            return Estimate::of(&[]);
        }
        let nf = n as f64;
        let p = successes as f64 / nf;
        let z2 = Z95 * Z95;
        let center = (p + z2 / (2.0 * nf)) / (1.0 + z2 / nf);
        let half = Z95 / (1.0 + z2 / nf) * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt();
        Estimate {
            n,
            mean: p,
            low: (center - half).max(0.0),
            high: (center + half).min(1.0),
        }
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = f.precision().unwrap_or(3);
        write!(
            f,
            "{:.p$} (95% CI {:.p$} – {:.p$}, n = {})",
            self.mean, self.low, self.high, self.n
        )
    }
}

/// The `q`-quantile (0.0–1.0) of `sorted` by the nearest-rank method.
///
/// ```
/// use kozyr_ai::percentile;
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
