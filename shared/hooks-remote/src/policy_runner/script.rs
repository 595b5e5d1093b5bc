//! The runner script (`python/policy_runner.py`), shipped inside the binary and written to the
//! cache folder on first use, under a name that carries its content's hash (so that two builds
//! never run each other's script).

use agora_hooks::HookError;
use std::path::{Path, PathBuf};

/// The runner script.
pub const RUNNER_SCRIPT: &str = include_str!("../../python/policy_runner.py");

/// Writes the script into `cache_dir` unless it is there already; returns its path.
pub(crate) fn write(cache_dir: &Path) -> Result<PathBuf, HookError> {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(RUNNER_SCRIPT.as_bytes());
    let name: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let dir = cache_dir.join("runner");
    let path = dir.join(format!("policy_runner_{name}.py"));
    if !path.exists() {
        let unavailable = |e: std::io::Error| HookError::Unavailable(format!("cannot write the policy runner to {}: {e}", dir.display()));
        std::fs::create_dir_all(&dir).map_err(unavailable)?;
        let tmp = dir.join(format!(".policy_runner_{name}.{}.tmp", std::process::id()));
        std::fs::write(&tmp, RUNNER_SCRIPT).map_err(unavailable)?;
        std::fs::rename(&tmp, &path).map_err(unavailable)?;
    }
    Ok(path)
}
