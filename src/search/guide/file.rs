//! The framing the guides' table files share: magic bytes, three layout words (version, rows,
//! weights per row), a reserved word and a checksum of the payload, then the payload, all
//! little-endian; and why such a file is refused.

use std::fmt;

/// Bytes before the payload: magic, version, rows, weights per row, a reserved word, checksum.
pub const HEADER_BYTES: usize = 8 + 4 * 4 + 8;

/// The file of `payload` under `magic` and `layout` (version, rows, weights per row).
pub fn framed(magic: &[u8; 8], layout: [u32; 3], payload: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER_BYTES + payload.len());
    bytes.extend_from_slice(magic);
    for word in layout.into_iter().chain([0]) {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    bytes.extend_from_slice(&checksum(payload).to_le_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

/// The payload of `bytes`, checked: its magic, its layout against the one this build reads,
/// its length (`payload_bytes` after the header) and its checksum.
pub fn payload_of<'b>(
    bytes: &'b [u8],
    magic: &[u8; 8],
    layout: [u32; 3],
    payload_bytes: usize,
) -> Result<&'b [u8], WeightsError> {
    if bytes.len() < HEADER_BYTES || &bytes[..8] != magic {
        return Err(WeightsError::NotWeights);
    }
    let word = |i: usize| u32::from_le_bytes(bytes[8 + 4 * i..12 + 4 * i].try_into().unwrap());
    let found = [word(0), word(1), word(2)];
    if found != layout {
        let [version, rows, stride] = found;
        return Err(WeightsError::Layout {
            version,
            rows,
            stride,
            reads: layout,
        });
    }
    let expected = HEADER_BYTES + payload_bytes;
    if bytes.len() != expected {
        return Err(WeightsError::Length {
            expected,
            found: bytes.len(),
        });
    }
    let stored = u64::from_le_bytes(bytes[24..32].try_into().unwrap());
    let payload = &bytes[HEADER_BYTES..];
    let found = checksum(payload);
    if found != stored {
        return Err(WeightsError::Checksum {
            expected: stored,
            found,
        });
    }
    Ok(payload)
}

/// Why a weights file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightsError {
    /// Not a weights file: the first bytes are not the magic.
    NotWeights,
    /// A version, row count or row width this build does not read.
    Layout {
        /// The file's version.
        version: u32,
        /// Its rows.
        rows: u32,
        /// Its weights per row.
        stride: u32,
        /// The version, rows and weights per row this build reads.
        reads: [u32; 3],
    },
    /// Shorter or longer than its header says.
    Length {
        /// The length its header implies.
        expected: usize,
        /// Its real length.
        found: usize,
    },
    /// The weights do not match the checksum in the header: the file was damaged.
    Checksum {
        /// The checksum in the header.
        expected: u64,
        /// The checksum of the weights.
        found: u64,
    },
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::NotWeights => write!(f, "not a guide weights file (bad magic bytes)"),
            WeightsError::Layout {
                version,
                rows,
                stride,
                reads: [read_version, read_rows, read_stride],
            } => write!(
                f,
                "guide weights of version {version}, {rows} rows of {stride}: this build reads \
                 version {read_version}, {read_rows} rows of {read_stride}"
            ),
            WeightsError::Length { expected, found } => write!(
                f,
                "guide weights file is {found} bytes where its header says {expected}"
            ),
            WeightsError::Checksum { expected, found } => write!(
                f,
                "guide weights are damaged: checksum {found:016x} where the header says \
                 {expected:016x}"
            ),
        }
    }
}

impl std::error::Error for WeightsError {}

/// FNV-1a, 64 bits: enough to tell a damaged file (not meant to resist a forger: the
/// weights can only change the search's work, never its answers).
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
