//! The built tracer library, cached per user. The library is loaded into every program
//! gpulint profiles, so the cache is held to what a security reviewer asks of it:
//! - the key covers the source, the architecture, the compiler (path and version) and the
//!   C++ runtime it links (linked statically where the compiler can, so a conda or
//!   system libstdc++ of another version cannot break it at load);
//! - the folder and the library are the user's own and writable by no one else, or they
//!   are not used;
//! - a build is written under a temporary name and renamed into place, so concurrent
//!   builders never load half a library, and the source goes to the compiler on stdin;
//! - a failed build is recorded with its reason and time, and tried again a day later;
//! - an unwritable or unsafe cache folder leaves a private build in a temporary folder.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use super::SOURCE;
use crate::profile::cache_folder::{fnv1a64, private_folder, untrusted};

/// A failed build is tried again after this long (or once its record is deleted).
pub const FAILURE_EXPIRES: Duration = Duration::from_secs(24 * 3600);

/// A built tracer; a private build's folder goes when this is dropped.
#[derive(Debug)]
pub struct Library {
    pub path: PathBuf,
    _private: Option<tempfile::TempDir>,
    /// Why the cache was not used, when it was not.
    pub cache_passed_over: Option<String>,
}

/// The compiler and how it links the C++ runtime: part of the cache key.
#[derive(Debug)]
pub struct Toolchain {
    pub compiler: PathBuf,
    pub version: String,
    /// `static` when libstdc++ links into the library, else the libstdc++ it loads.
    pub runtime: String,
}

impl Toolchain {
    pub fn probe(compiler: &Path) -> Toolchain {
        let ask = |arg: &str| {
            Command::new(compiler)
                .arg(arg)
                .stdin(Stdio::null())
                .output()
                .ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .unwrap_or_default()
        };
        let version = ask("--version").lines().next().unwrap_or("").to_string();
        // The compiler prints the bare name when it has no such file.
        let archive = ask("-print-file-name=libstdc++.a");
        let runtime = if Path::new(&archive).is_absolute() && Path::new(&archive).is_file() {
            "static".to_string()
        } else {
            let shared = ask("-print-file-name=libstdc++.so");
            std::fs::canonicalize(&shared)
                .map(|p| p.display().to_string())
                .unwrap_or(shared)
        };
        Toolchain {
            compiler: compiler.canonicalize().unwrap_or(compiler.to_path_buf()),
            version,
            runtime,
        }
    }

    /// The cache key: FNV-1a over the tracer's source, the architecture and the
    /// toolchain, byte by byte. std's DefaultHasher may change between Rust releases, and
    /// a key that changes with the gpulint build rebuilds the tracer for nothing.
    fn key(&self) -> String {
        let compiler = self.compiler.to_string_lossy();
        let parts: [&[u8]; 5] = [
            SOURCE.as_bytes(),
            std::env::consts::ARCH.as_bytes(),
            compiler.as_bytes(),
            self.version.as_bytes(),
            self.runtime.as_bytes(),
        ];
        format!("{:016x}", fnv1a64(&parts))
    }

    fn command(&self, out: &Path) -> Command {
        let mut command = Command::new(&self.compiler);
        // -pthread: the window's timer thread (glibc before 2.34 keeps threads apart).
        command.args(["-shared", "-fPIC", "-O2", "-std=c++17", "-pthread"]);
        if self.runtime == "static" {
            command.args(["-static-libstdc++", "-static-libgcc"]);
        }
        command
            .args(["-x", "c++", "-", "-x", "none", "-ldl", "-o"])
            .arg(out);
        command
    }
}

/// The tracer built by `toolchain`: from the cache folder `cache` when it holds a trusted
/// build, else built there; built privately in a temporary folder when the cache folder
/// cannot be written or trusted. `Err` says why there is none: the compiler failed, now or
/// in a recorded build less than [`FAILURE_EXPIRES`] ago.
pub fn library(
    toolchain: &Toolchain,
    cache: Option<&Path>,
    verbose: bool,
) -> Result<Library, String> {
    let key = toolchain.key();
    let usable = cache
        .ok_or_else(|| "no cache folder: neither XDG_CACHE_HOME nor HOME is set".to_string())
        .and_then(private_folder);
    let dir = match usable {
        Ok(dir) => dir,
        Err(why) => return private_build(toolchain, &key, why, verbose),
    };
    let built = dir.join(format!("launch_tracer-{key}.so"));
    if built.exists() {
        return match untrusted(&built, false) {
            None => Ok(Library {
                path: built,
                _private: None,
                cache_passed_over: None,
            }),
            Some(why) => private_build(toolchain, &key, format!("{why}: not loaded"), verbose),
        };
    }
    let failed = dir.join(format!("launch_tracer-{key}.failed.txt"));
    if let Some(why) = recorded_failure(&failed) {
        return Err(why);
    }
    let partial = tempfile::Builder::new()
        .prefix(".launch_tracer-")
        .suffix(".so.partial")
        .tempfile_in(&dir);
    let partial = match partial {
        Ok(p) => p.into_temp_path(),
        Err(e) => {
            let why = format!("cannot write in the cache folder {}: {e}", dir.display());
            return private_build(toolchain, &key, why, verbose);
        }
    };
    match compile(toolchain, &partial, verbose) {
        Ok(()) => {
            let _ = crate::platform::set_mode(&partial, 0o755);
            partial
                .persist(&built)
                .map_err(|e| format!("{}: {}", built.display(), e.error))?;
            Ok(Library {
                path: built,
                _private: None,
                cache_passed_over: None,
            })
        }
        Err(Failure::Compiler(why)) => {
            record_failure(&dir, &failed, &why);
            Err(why)
        }
        Err(Failure::Transient(why)) => Err(why),
    }
}

/// A build in a fresh private folder, for this run only.
fn private_build(
    toolchain: &Toolchain,
    key: &str,
    why: String,
    verbose: bool,
) -> Result<Library, String> {
    let dir = crate::platform::private_tempdir("gpulint-tracer-")
        .map_err(|e| format!("{why}, and no temporary folder for a private build: {e}"))?;
    let path = dir.path().join(format!("launch_tracer-{key}.so"));
    compile(toolchain, &path, verbose).map_err(|f| match f {
        Failure::Compiler(w) | Failure::Transient(w) => w,
    })?;
    Ok(Library {
        path,
        _private: Some(dir),
        cache_passed_over: Some(why),
    })
}

enum Failure {
    /// The compiler ran and refused: the same build would fail again.
    Compiler(String),
    /// It could not be run or fed: worth trying again next time.
    Transient(String),
}

fn compile(toolchain: &Toolchain, out: &Path, verbose: bool) -> Result<(), Failure> {
    let mut command = toolchain.command(out);
    if verbose {
        crate::note!("building the launch tracer: {command:?} < launch_tracer.cpp");
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Failure::Transient(format!("{}: {e}", toolchain.compiler.display())))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A compiler that stops reading early fails below with its own message.
        let _ = stdin.write_all(SOURCE.as_bytes());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| Failure::Transient(format!("{}: {e}", toolchain.compiler.display())))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last: Vec<&str> = stderr.lines().rev().take(3).collect();
    Err(Failure::Compiler(format!(
        "building the launch tracer failed ({}): {}",
        out.status,
        last.into_iter().rev().collect::<Vec<_>>().join(" / ")
    )))
}

/// Records a compiler's refusal: the time, then the reason (written whole, then renamed).
fn record_failure(dir: &Path, failed: &Path, why: &str) {
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    if let Ok(mut tmp) = tempfile::NamedTempFile::new_in(dir)
        && writeln!(tmp, "{now}\n{why}").is_ok()
    {
        let _ = tmp.persist(failed);
    }
}

/// The recorded failure's reason while it holds: trusted and younger than a day.
fn recorded_failure(failed: &Path) -> Option<String> {
    if !failed.exists() || untrusted(failed, false).is_some() {
        return None;
    }
    let text = std::fs::read_to_string(failed).ok()?;
    let (when, why) = text.split_once('\n')?;
    let when = SystemTime::UNIX_EPOCH + Duration::from_secs(when.trim().parse().ok()?);
    let age = SystemTime::now().duration_since(when).unwrap_or_default();
    if age >= FAILURE_EXPIRES {
        let _ = std::fs::remove_file(failed);
        return None;
    }
    Some(format!(
        "{} (an earlier build, {} h ago; it is tried again after 24 h, or now if {} is deleted)",
        why.trim(),
        age.as_secs() / 3600,
        failed.display()
    ))
}

/// The recorded failure of `toolchain`'s build in `cache`, for `doctor`.
pub fn recorded_failure_of(toolchain: &Toolchain, cache: &Path) -> Option<String> {
    recorded_failure(&cache.join(format!("launch_tracer-{}.failed.txt", toolchain.key())))
}

/// The cached library of `toolchain` in `cache`, when built, for `doctor`.
pub fn cached_library(toolchain: &Toolchain, cache: &Path) -> Option<PathBuf> {
    let built = cache.join(format!("launch_tracer-{}.so", toolchain.key()));
    built.exists().then_some(built)
}

// Scripts the tests write and run (shared with tests/common).
#[cfg(all(test, unix))]
#[path = "../../../../tests/common/executable.rs"]
mod executable;

// The cache's trust checks read Unix modes and owners.
#[cfg(all(test, unix))]
mod tests {
    use super::executable::write_executable;
    use super::*;
    use crate::platform::current_uid;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    /// The key is FNV-1a over fixed bytes, the same in every build: FNV-1a's value for
    /// "a" and the separator is pinned, and each toolchain field changes the key.
    #[test]
    fn the_cache_key_is_stable() {
        assert_eq!(fnv1a64(&[]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(&[b"a"]), 0x089b_c907_b544_c769);
        assert_ne!(fnv1a64(&[b"ab", b"c"]), fnv1a64(&[b"a", b"bc"]));
        let tool = |version: &str| Toolchain {
            compiler: PathBuf::from("/usr/bin/g++"),
            version: version.into(),
            runtime: "static".into(),
        };
        assert_eq!(tool("g++ 12.2.0").key(), tool("g++ 12.2.0").key());
        assert_ne!(tool("g++ 12.2.0").key(), tool("g++ 13.1.0").key());
    }

    /// A compiler that answers gpulint's questions, reads the source from stdin, counts its
    /// builds in `calls`, and after a pause writes a library, or fails when `fail` is set.
    fn stand_in_compiler(dir: &Path, fail: bool) -> PathBuf {
        let calls = dir.join("calls");
        let script = format!(
            "#!/bin/sh\n\
             case \"$1\" in --version) echo 'stand-in c++ 1.0'; exit 0;; \
             -print-file-name=*) echo \"${{1#-print-file-name=}}\"; exit 0;; esac\n\
             out=''; prev=''\n\
             for a in \"$@\"; do [ \"$prev\" = -o ] && out=\"$a\"; prev=\"$a\"; done\n\
             bytes=$(wc -c)\n\
             echo \"$bytes\" >> '{}'\n\
             {}\n\
             sleep 0.2\n\
             printf '\\177ELF whole' > \"$out\"\n",
            calls.display(),
            if fail {
                "echo 'tracer.cpp:1: error: boom' >&2; exit 1"
            } else {
                ""
            }
        );
        let path = dir.join(if fail { "failing-c++" } else { "c++" });
        write_executable(&path, &script);
        path
    }

    fn builds(dir: &Path) -> Vec<String> {
        std::fs::read_to_string(dir.join("calls"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// The whole source reaches the compiler on stdin; the library is built once, then
    /// taken from the cache, and the cache folder is made private.
    #[test]
    fn a_build_is_cached_and_reused() {
        let root = tempfile::tempdir().unwrap();
        let toolchain = Toolchain::probe(&stand_in_compiler(root.path(), false));
        assert_eq!(toolchain.version, "stand-in c++ 1.0");
        let cache = root.path().join("cache/gpulint");
        let first = library(&toolchain, Some(&cache), false).unwrap();
        let again = library(&toolchain, Some(&cache), false).unwrap();
        assert_eq!(first.path, again.path);
        assert_eq!(builds(root.path()), [SOURCE.len().to_string()]);
        let mode = std::fs::metadata(&cache).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }

    /// Four builders at once into one empty cache: each gets a whole library, and no
    /// partial file is left behind.
    #[test]
    fn concurrent_builds_each_get_a_whole_library() {
        let root = tempfile::tempdir().unwrap();
        let toolchain = Toolchain::probe(&stand_in_compiler(root.path(), false));
        let cache = root.path().join("cache");
        let paths: Vec<PathBuf> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| library(&toolchain, Some(&cache), false).unwrap().path))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for p in &paths {
            assert_eq!(std::fs::read(p).unwrap(), b"\x7fELF whole");
        }
        let left: Vec<_> = std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left.len(), 1, "{left:?}");
    }

    /// A library someone else could have written is never loaded: a group-writable one,
    /// and (where the tests run as root and can give it away) one owned by another user.
    /// A private build stands in, and says why.
    #[test]
    fn a_foreign_or_group_writable_library_is_not_loaded() {
        let root = tempfile::tempdir().unwrap();
        let toolchain = Toolchain::probe(&stand_in_compiler(root.path(), false));
        let cache = root.path().join("cache");
        let cached = library(&toolchain, Some(&cache), false).unwrap().path;
        std::fs::write(&cached, "planted").unwrap();
        std::fs::set_permissions(&cached, std::fs::Permissions::from_mode(0o775)).unwrap();
        let lib = library(&toolchain, Some(&cache), false).unwrap();
        assert_ne!(lib.path, cached);
        assert_eq!(std::fs::read(&lib.path).unwrap(), b"\x7fELF whole");
        let why = lib.cache_passed_over.clone().unwrap();
        assert!(
            why.contains("writable by group or others (mode 775)"),
            "{why}"
        );
        drop(lib);

        std::fs::set_permissions(&cached, std::fs::Permissions::from_mode(0o755)).unwrap();
        if current_uid() == Some(0) {
            std::os::unix::fs::chown(&cached, Some(65534), None).unwrap();
            let lib = library(&toolchain, Some(&cache), false).unwrap();
            assert_ne!(lib.path, cached);
            let why = lib.cache_passed_over.unwrap();
            assert!(why.contains("owned by uid 65534"), "{why}");
        } else {
            eprintln!("not root: the foreign-owned case needs chown, and is not run here");
        }
        // A cache folder others can write to is not used either.
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
        let lib = library(&toolchain, Some(&cache), false).unwrap();
        assert!(lib.cache_passed_over.unwrap().contains("cache folder"));
    }

    /// A failed build is recorded and not retried while the record is fresh; a record a
    /// day old has expired, and the build is tried again.
    #[test]
    fn a_failed_build_is_recorded_and_expires() {
        let root = tempfile::tempdir().unwrap();
        let toolchain = Toolchain::probe(&stand_in_compiler(root.path(), true));
        let cache = root.path().join("cache");
        let first = library(&toolchain, Some(&cache), false).unwrap_err();
        assert!(first.contains("boom"), "{first}");
        let second = library(&toolchain, Some(&cache), false).unwrap_err();
        assert!(
            second.contains("boom (an earlier build, 0 h ago"),
            "{second}"
        );
        assert_eq!(builds(root.path()).len(), 1);
        let record = cache.join(format!("launch_tracer-{}.failed.txt", toolchain.key()));
        let old = SystemTime::now() - FAILURE_EXPIRES - Duration::from_secs(60);
        let old = old
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        std::fs::write(
            &record,
            format!("{old}\nbuilding the launch tracer failed: boom\n"),
        )
        .unwrap();
        std::fs::set_permissions(&record, std::fs::Permissions::from_mode(0o600)).unwrap();
        let third = library(&toolchain, Some(&cache), false).unwrap_err();
        assert!(!third.contains("an earlier build"), "{third}");
        assert_eq!(builds(root.path()).len(), 2);
    }

    /// A cache folder that cannot be written (a read-only HOME) leaves a private build for
    /// the run, removed with it. Root writes through permission bits, so there the folder
    /// is one under /proc, which no one can create.
    #[test]
    fn an_unwritable_cache_folder_falls_back_to_a_private_build() {
        let root = tempfile::tempdir().unwrap();
        let toolchain = Toolchain::probe(&stand_in_compiler(root.path(), false));
        let cache = if current_uid() == Some(0) {
            PathBuf::from("/proc/gpulint-no-such-cache/gpulint")
        } else {
            let read_only = root.path().join("ro");
            std::fs::create_dir(&read_only).unwrap();
            std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o555)).unwrap();
            read_only.join("gpulint")
        };
        let lib = library(&toolchain, Some(&cache), false).unwrap();
        assert_eq!(std::fs::read(&lib.path).unwrap(), b"\x7fELF whole");
        assert!(
            lib.cache_passed_over
                .as_deref()
                .unwrap()
                .contains("cannot create the cache folder")
        );
        let private = lib.path.clone();
        drop(lib);
        assert!(!private.exists(), "the private build outlived its run");
    }
}
