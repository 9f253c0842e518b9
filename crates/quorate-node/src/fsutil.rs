//! Bounded reads and durable, never-silent writes.
//!
//! Every file the node reads goes through [`read_bounded`] (or [`read_text_bounded`]), which
//! refuses files larger than a per-kind cap before reading them, so a hostile or mistaken
//! path (a device, a multi-gigabyte log) cannot exhaust memory, and every failure is a typed
//! [`FileError`] naming the path.
//!
//! Every file the node writes goes through [`write_atomic`]:
//!
//! 1. the bytes go to a fresh temporary file in the same directory (created `O_EXCL`, with
//!    the requested mode, e.g. `0600` for secrets), which is `fsync`ed;
//! 2. it is moved into place: with [`Overwrite::Never`] by `link(2)`, which fails if the
//!    target exists (so nothing is overwritten, even by a concurrent writer), with
//!    [`Overwrite::Replace`] by `rename(2)`;
//! 3. the temporary name is removed and the directory is `fsync`ed, so the new name is
//!    durable.
//!
//! Crash model: after a crash at any point the target is either absent (or, for `Replace`,
//! its old contents) or complete; a stray `.tmp-*` file may remain and is harmless.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Size cap for small configuration files (node config, public entry, token).
pub const MAX_CONFIG_BYTES: u64 = 64 * 1024;
/// Size cap for a roster file.
pub const MAX_ROSTER_BYTES: u64 = 1024 * 1024;
/// Size cap for a passphrase file.
pub const MAX_PASSPHRASE_BYTES: u64 = 4 * 1024;

/// A failed file operation, always naming the path.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    /// The file does not exist.
    #[error("{path}: no such file")]
    NotFound {
        /// The path.
        path: PathBuf,
    },
    /// The file is larger than the cap for its kind.
    #[error("{path}: larger than the {limit}-byte limit for this file")]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// The cap in bytes.
        limit: u64,
    },
    /// The path is not a regular file.
    #[error("{path}: not a regular file")]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// The file is not valid UTF-8 text.
    #[error("{path}: not valid UTF-8 text")]
    NotUtf8 {
        /// The path.
        path: PathBuf,
    },
    /// The target exists and overwriting was not requested.
    #[error("{path}: already exists (refusing to overwrite it)")]
    AlreadyExists {
        /// The path.
        path: PathBuf,
    },
    /// Any other I/O error.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl FileError {
    /// Wraps an I/O error for `path`, mapping `NotFound` and `AlreadyExists` to their variants.
    pub fn io(path: &Path, source: std::io::Error) -> FileError {
        let path = path.to_path_buf();
        match source.kind() {
            std::io::ErrorKind::NotFound => FileError::NotFound { path },
            std::io::ErrorKind::AlreadyExists => FileError::AlreadyExists { path },
            _ => FileError::Io { path, source },
        }
    }
}

/// Reads a regular file of at most `limit` bytes.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let file = File::open(path).map_err(|e| FileError::io(path, e))?;
    let meta = file.metadata().map_err(|e| FileError::io(path, e))?;
    if !meta.is_file() {
        return Err(FileError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    if meta.len() > limit {
        return Err(FileError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    // The file may grow between the metadata call and the read: read at most limit + 1.
    let mut buf = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|e| FileError::io(path, e))?;
    if buf.len() as u64 > limit {
        return Err(FileError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    Ok(buf)
}

/// Reads a UTF-8 text file of at most `limit` bytes.
pub fn read_text_bounded(path: &Path, limit: u64) -> Result<String, FileError> {
    let bytes = read_bounded(path, limit)?;
    String::from_utf8(bytes).map_err(|_| FileError::NotUtf8 {
        path: path.to_path_buf(),
    })
}

/// What [`write_atomic`] does when the target already exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overwrite {
    /// Fail with [`FileError::AlreadyExists`] (the default for everything the node writes).
    Never,
    /// Atomically replace the existing file (only on an explicit operator request).
    Replace,
}

/// `fsync`s a directory, making renames and links inside it durable.
pub fn sync_dir(dir: &Path) -> Result<(), FileError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| FileError::io(dir, e))
}

/// The directory holding `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Writes `bytes` to `path` durably and atomically with the given mode (see the module docs).
pub fn write_atomic(
    path: &Path,
    bytes: &[u8],
    mode: u32,
    overwrite: Overwrite,
) -> Result<(), FileError> {
    let dir = parent_dir(path);
    let file_name = path.file_name().ok_or_else(|| FileError::NotAFile {
        path: path.to_path_buf(),
    })?;
    if overwrite == Overwrite::Never && path.symlink_metadata().is_ok() {
        return Err(FileError::AlreadyExists {
            path: path.to_path_buf(),
        });
    }
    let mut nonce = [0u8; 8];
    rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut nonce);
    let tmp = dir.join(format!(
        ".tmp-{}-{}",
        file_name.to_string_lossy(),
        hex::encode(nonce)
    ));
    let result = write_tmp_then_place(&tmp, path, bytes, mode, overwrite);
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result?;
    sync_dir(&dir)
}

fn write_tmp_then_place(
    tmp: &Path,
    path: &Path,
    bytes: &[u8],
    mode: u32,
    overwrite: Overwrite,
) -> Result<(), FileError> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(tmp)
        .map_err(|e| FileError::io(tmp, e))?;
    // The umask may have removed bits; it can never add them, but set the mode exactly.
    file.set_permissions(fs::Permissions::from_mode(mode))
        .map_err(|e| FileError::io(tmp, e))?;
    file.write_all(bytes).map_err(|e| FileError::io(tmp, e))?;
    file.sync_all().map_err(|e| FileError::io(tmp, e))?;
    drop(file);
    match overwrite {
        Overwrite::Never => {
            fs::hard_link(tmp, path).map_err(|e| FileError::io(path, e))?;
            fs::remove_file(tmp).map_err(|e| FileError::io(tmp, e))?;
        }
        Overwrite::Replace => fs::rename(tmp, path).map_err(|e| FileError::io(path, e))?,
    }
    Ok(())
}

/// Creates `dir` (and missing parents) with mode `0700` if it does not exist, and `fsync`s
/// its parent so the new directory entry is durable.
pub fn create_private_dir(dir: &Path) -> Result<(), FileError> {
    if dir.is_dir() {
        return Ok(());
    }
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| FileError::io(dir, e))?;
    sync_dir(&parent_dir(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_never_refuses_existing_and_keeps_contents() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f.toml");
        write_atomic(&path, b"one", 0o600, Overwrite::Never).expect("first write");
        let err = write_atomic(&path, b"two", 0o600, Overwrite::Never).expect_err("must refuse");
        assert!(matches!(err, FileError::AlreadyExists { .. }), "{err}");
        assert_eq!(fs::read(&path).expect("read"), b"one");
        write_atomic(&path, b"three", 0o600, Overwrite::Replace).expect("replace");
        assert_eq!(fs::read(&path).expect("read"), b"three");
        // No temporary files are left behind.
        let names: Vec<_> = fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn write_sets_mode_exactly() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("secret");
        write_atomic(&path, b"s", 0o600, Overwrite::Never).expect("write");
        let mode = fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn bounded_read_refuses_large_files_and_directories() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("big");
        fs::write(&path, vec![b'x'; 101]).expect("write");
        assert!(matches!(
            read_bounded(&path, 100),
            Err(FileError::TooLarge { limit: 100, .. })
        ));
        assert_eq!(read_bounded(&path, 101).expect("fits").len(), 101);
        assert!(matches!(
            read_bounded(dir.path(), 100),
            Err(FileError::NotAFile { .. })
        ));
        assert!(matches!(
            read_bounded(&dir.path().join("missing"), 100),
            Err(FileError::NotFound { .. })
        ));
        fs::write(&path, [0xff, 0xfe]).expect("write");
        assert!(matches!(
            read_text_bounded(&path, 100),
            Err(FileError::NotUtf8 { .. })
        ));
    }
}
