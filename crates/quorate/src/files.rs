//! Bounded reads and safe writes for every file the CLI touches.
//!
//! * Every input file is read through [`read_capped`]: at most [`MAX_INPUT_BYTES`] (4 MiB)
//!   are read, so `/dev/zero`, a FIFO or a huge file is refused instead of exhausting memory.
//! * Key and secret files are written by [`write_new_file`]: never over an existing file
//!   without `--force`; through a temporary file created with mode 0600 (secrets) in the same
//!   directory, written, fsynced, renamed over the target, and the directory fsynced. A
//!   secret file is therefore 0600 even when it replaces a 0644 file, and a crash leaves
//!   either the old file or the new one.
//! * [`quote`] shows at most a short prefix of an input in an error message.

use anyhow::{bail, Context as _};
use std::io::{Read as _, Write as _};
use std::path::Path;

/// The largest input file (roster, receipt, backup, proof, key file) the CLI reads: 4 MiB.
pub const MAX_INPUT_BYTES: u64 = 4 << 20;

/// The longest prefix of an input that an error message quotes, in characters.
pub const QUOTE_CHARS: usize = 40;

/// Reads at most `cap` bytes of `path`; a longer file (or an endless one, such as a FIFO or
/// a device) is an error after reading `cap + 1` bytes.
pub fn read_capped(path: &Path, cap: u64) -> anyhow::Result<Vec<u8>> {
    let file = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", path.display()))?;
    if bytes.len() as u64 > cap {
        bail!(
            "{}: larger than the {} limit on input files",
            path.display(),
            format_size(cap)
        );
    }
    Ok(bytes)
}

/// [`read_capped`] with [`MAX_INPUT_BYTES`], as UTF-8 text.
pub fn read_text(path: &Path) -> anyhow::Result<String> {
    String::from_utf8(read_capped(path, MAX_INPUT_BYTES)?)
        .map_err(|_| anyhow::anyhow!("{}: not UTF-8 text", path.display()))
}

/// `4 MiB`, `512 KiB`, `100 B`.
pub fn format_size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} B")
    }
}

/// At most [`QUOTE_CHARS`] characters of `input` for an error message, with the full length
/// when it was cut: `"abc…" (12345 bytes)`.
pub fn quote(input: &str) -> String {
    match input.char_indices().nth(QUOTE_CHARS) {
        None => format!("{input:?}"),
        Some((cut, _)) => format!("{:?}… ({} bytes)", &input[..cut], input.len()),
    }
}

/// Whether a written file holds a secret (mode 0600) or public data (mode 0644).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Readable and writable by the owner only (0600).
    Secret,
    /// World-readable (0644).
    Public,
}

/// Fails unless `path` is free or `force` is set: key and secret files are never replaced
/// silently.
pub fn ensure_writable(path: &Path, force: bool) -> anyhow::Result<()> {
    if !force && std::fs::symlink_metadata(path).is_ok() {
        bail!(
            "{} already exists; refusing to overwrite it (pass --force to replace it)",
            path.display()
        );
    }
    Ok(())
}

/// Writes `contents` to `path` atomically and durably: a fresh temporary file in the same
/// directory (created exclusively, with `access`'s mode), fsync, rename over `path`, fsync of
/// the directory. Refuses an existing `path` unless `force` ([`ensure_writable`]).
pub fn write_new_file(
    path: &Path,
    contents: &[u8],
    access: Access,
    force: bool,
) -> anyhow::Result<()> {
    ensure_writable(path, force)?;
    let name = path
        .file_name()
        .with_context(|| format!("{}: not a file name", path.display()))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = write_and_rename(&tmp, path, dir, contents, access);
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("writing {}", path.display()))
}

fn write_and_rename(
    tmp: &Path,
    path: &Path,
    dir: &Path,
    contents: &[u8],
    access: Access,
) -> anyhow::Result<()> {
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        opts.mode(match access {
            Access::Secret => 0o600,
            Access::Public => 0o644,
        });
    }
    let mut file = opts.open(tmp)?;
    file.write_all(contents)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(tmp, path)?;
    #[cfg(unix)]
    std::fs::File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Checks that an output file can be created at `path` (its directory exists and is
/// writable) by creating and removing a temporary file beside it; for commands that write
/// their output only after a long run.
pub fn check_output_path(path: &Path) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let probe = dir.join(format!(".quorate-probe-{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_short() {
        assert_eq!(quote("abc"), "\"abc\"");
        let long = "x".repeat(10_000);
        let q = quote(&long);
        assert!(q.len() < 80, "{q}");
        assert!(q.ends_with("(10000 bytes)"));
        // Cut on a character boundary.
        let q = quote(&"é".repeat(100));
        assert!(q.starts_with("\"éé"));
    }

    #[test]
    fn sizes() {
        assert_eq!(format_size(MAX_INPUT_BYTES), "4 MiB");
        assert_eq!(format_size(2048), "2 KiB");
        assert_eq!(format_size(100), "100 B");
    }
}
