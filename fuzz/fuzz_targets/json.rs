//! The JSON and text formats (see `quorate_fuzz::json`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: {
        if let Some(root) = std::env::var_os("QUORATE_FUZZ_WRITE_SEEDS") {
            let dir = std::path::Path::new(&root).join("json");
            std::fs::create_dir_all(&dir).expect("seed directory");
            for (name, bytes) in quorate_fuzz::json::seeds() {
                std::fs::write(dir.join(name), bytes).expect("seed file");
            }
        }
    },
    |data: &[u8]| quorate_fuzz::json::run(data)
);
