use std::fmt;

/// Everything that can go wrong in the core. The binding maps each variant to
/// the Python exception (and message) that scikit-learn raises for it.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The two labelings have different lengths.
    LengthMismatch { left: usize, right: usize },
    /// A given contingency table has a negative count.
    NegativeCount,
    /// A given contingency table names a cell outside its shape.
    CellOutOfBounds,
    /// More distinct labels than the table's `u32` indices can address.
    TooManyLabels,
    /// A fixed-width string buffer whose length is not a multiple of its item width.
    BadItemWidth,
    /// Arrow string buffers that do not hold their items: an offset outside the data or
    /// smaller than the one before, or a validity bitmap too short.
    BadArrowBuffers,
    /// A given contingency table whose counts add up to more than `u64::MAX`.
    CountOverflow,
    /// A sample weight that is negative, not finite, or 2^52 or more: the first one.
    BadWeight { index: usize, value: f64 },
    /// Sample weights that add up to 2^62 or more.
    WeightTotal,
    /// The call was asked to stop ([`crate::stop`]).
    Stopped,
    /// A dendrogram's merges that do not form a tree of its samples (what is wrong).
    BadTree(String),
    /// An exact computation that would take too long (what, and its cost).
    TooCostly(String),
    /// A sample whose pair of labels is not a cell of the table it is looked up in.
    NotInTable,
    /// Arrays whose shapes do not fit one another (an embedding's values, its labelings'
    /// codes, a matrix of distances): what is wrong.
    BadShape(String),
    /// Samples holding NaN or infinity, or finite values whose sums overflow `f64`: found
    /// by the first pass over them, which adds them up anyway.
    NotFinite,
    /// The system refused memory for something that grows with the input: what, and the
    /// bytes it needed ([`crate::alloc`]).
    OutOfMemory { what: &'static str, bytes: usize },
    /// A need known before it is allocated that is more than the process may still use
    /// ([`crate::memory`]): what, its bytes, the bytes left, and what limits them.
    PastUsable {
        what: &'static str,
        bytes: usize,
        room: u64,
        limit: &'static str,
    },
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
            Error::TooManyLabels => f.write_str("more than 2**32 - 2 distinct labels"),
            Error::CountOverflow => {
                f.write_str("a contingency table's counts add up to more than 2**64 - 1")
            }
            Error::BadWeight { index, value } => {
                let what = if value.is_nan() {
                    "NaN".to_string()
                } else if value.is_infinite() {
                    format!("{}infinity", if *value < 0.0 { "-" } else { "" })
                } else {
                    format!("{value:?}")
                };
                write!(
                    f,
                    "sample_weight[{index}] is {what}: weights must be finite, non-negative and \
                     less than 2**52"
                )
            }
            Error::WeightTotal => f.write_str("sample_weight sums to 2**62 or more"),
            Error::Stopped => f.write_str("the call was interrupted"),
            Error::BadTree(what) => write!(f, "not a valid dendrogram: {what}"),
            Error::TooCostly(what) => write!(f, "too costly to compute exactly: {what}"),
            Error::BadArrowBuffers => f.write_str(
                "an Arrow string array's buffers do not hold its items (offsets outside the data \
                 or decreasing, or a validity bitmap too short)",
            ),
            Error::BadShape(what) => write!(f, "inputs of mismatched shapes: {what}"),
            Error::NotFinite => f.write_str(
                "the samples hold NaN or infinity, or values whose sums overflow float64",
            ),
            Error::NotInTable => {
                f.write_str("a sample's labels are not a cell of the table counted from them")
            }
            Error::BadItemWidth => {
                f.write_str("a string array's buffer is not a whole number of items")
            }
            Error::OutOfMemory { what, bytes } => write!(
                f,
                "out of memory: could not allocate {bytes} bytes ({:.1} MiB) for {what}",
                *bytes as f64 / (1u64 << 20) as f64
            ),
            Error::PastUsable {
                what,
                bytes,
                room,
                limit,
            } => write!(
                f,
                "out of memory: {what} needs {bytes} bytes ({:.1} MiB), more than the {:.1} MiB \
                 this process may use ({limit})",
                *bytes as f64 / (1u64 << 20) as f64,
                *room as f64 / (1u64 << 20) as f64
            ),
        }
    }
}

impl std::error::Error for Error {}
