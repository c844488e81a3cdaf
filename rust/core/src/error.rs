use std::fmt;

/// Everything that can go wrong in the core. The binding maps each variant to
/// the Python exception (and message) that scikit-learn raises for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The two labelings have different lengths.
    LengthMismatch { left: usize, right: usize },
    /// A given contingency table has a negative count.
    NegativeCount,
    /// A given contingency table names a cell outside its shape.
    CellOutOfBounds,
    /// More distinct labels than the table's `u32` indices can address.
    TooManyLabels,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::LengthMismatch { left, right } => write!(
                f,
                "Found input variables with inconsistent numbers of samples: [{left}, {right}]"
            ),
            Error::NegativeCount => f.write_str("a contingency table cannot hold negative counts"),
            Error::CellOutOfBounds => {
                f.write_str("a contingency table cell lies outside the table's shape")
            }
            Error::TooManyLabels => f.write_str("more than 2**32 - 1 distinct labels"),
        }
    }
}

impl std::error::Error for Error {}
