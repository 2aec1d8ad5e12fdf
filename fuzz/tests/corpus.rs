//! The CI smoke run of the fuzz targets on the stable toolchain, without
//! libFuzzer: every file of the seed corpus (`fuzz/corpus/TARGET/`), the
//! regression inputs (`fuzz/regressions/TARGET/`, crashes once found) and
//! a batch of generated inputs go through each target.

use fieldwork_fuzz::TARGETS;
use std::path::Path;

/// Generated inputs per target (a few seconds in all in release).
const GENERATED: u64 = 200;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn files(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

#[test]
fn corpus_and_generated_inputs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut total = 0;
    for &(name, target) in TARGETS {
        let mut inputs = files(&root.join("corpus").join(name));
        inputs.extend(files(&root.join("regressions").join(name)));
        let replayed = inputs.len();
        let mut state = name
            .bytes()
            .fold(0u64, |h, b| h.rotate_left(5) ^ u64::from(b));
        for i in 0..GENERATED {
            let len = (splitmix(&mut state) % [16, 64, 300, 1200][(i % 4) as usize]) as usize;
            inputs.push((0..len).map(|_| splitmix(&mut state) as u8).collect());
        }
        for input in &inputs {
            target(input);
        }
        eprintln!("{name}: {replayed} corpus inputs, {GENERATED} generated");
        total += replayed;
    }
    assert!(total > 0, "no seed corpus found under fuzz/corpus");
}
