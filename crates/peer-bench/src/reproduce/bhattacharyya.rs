//! Document 003: S. Bhattacharyya, *Improved SIMD Implementation of
//! Poly1305* (M.Tech dissertation, ISI Kolkata, 2018; supervised by P.
//! Sarkar) — §1's speed-up of complete 4-decimation over Goll–Gueron per
//! 1 KB band, §3.4's operation count, beside the faithful Goll–Gueron
//! (`fieldwork::poly1305::goll_gueron`), fieldwork's complete-decimation
//! schedule (`avx2-decimation`, by name through `fieldwork::hazmat`), its
//! Goll–Gueron schedule, the AVX-512F 8-decimation and the default.
//!
//! The text breaks off inside §3.5: §4 (the decimation itself), §5's
//! Tables 1 and 2 and the figures' data are not in it; the page says so.

use super::{Doc, Measurements, Table, cell};
use crate::groups::poly1305 as group;
use crate::harness::{Case, Impl};
use fieldwork::poly1305::goll_gueron::{Decimation8, GollGueron, MUL_4X130_OPS};

/// The page.
pub const DOC: Doc = Doc {
    name: "bhattacharyya",
    seed: "003",
    title: "S. Bhattacharyya, *Improved SIMD Implementation of Poly1305* \
            (M.Tech dissertation, ISI Kolkata, 2018)",
    platform: "Intel Skylake and Kaby Lake cores (§5; the text of §5.1, \
               the measuring environment, is not in the conversion), AVX2 \
               intrinsics",
    cases,
    tables,
};

/// The timed group.
const GROUP: &str = "poly1305-bhattacharyya";

/// §1's results per band as printed: (band, lengths, Skylake mean and
/// max speed-up in %, Kaby Lake mean and max). The first band is "till 1
/// KB"; the figures' lengths run 49–4000 bytes.
/// A printed row: band, its lengths, Skylake mean and max, Kaby Lake
/// mean and max (%).
type Printed = (&'static str, (usize, usize), f64, f64, f64, f64);

const PRINTED: [Printed; 4] = [
    ("up to 1 KB", (49, 1024), 12.58, 34.46, 14.44, 34.63),
    ("1–2 KB", (1025, 2048), 6.10, 20.69, 6.53, 16.03),
    ("2–3 KB", (2049, 3072), 3.92, 13.79, 4.13, 13.79),
    ("3–4 KB", (3073, 4000), 2.90, 10.26, 2.64, 13.75),
];

/// The timed lengths of a band: 16 from its first length in steps of 61
/// bytes (61 ≡ −3 mod 64: 16 different residues mod 64, the quantity
/// §3.3's cases depend on, and every block count mod 4).
fn lengths((lo, _): (usize, usize)) -> impl Iterator<Item = usize> {
    (0..16).map(move |j| lo + 61 * j)
}

/// Column names.
const FAITHFUL: &str = "faithful Goll–Gueron (§3)";
const COMPLETE: &str = "complete 4-decimation on §3's kernel";
const DECIMATION: &str = "complete 4-decimation (avx2-decimation)";
const GG_SCHEDULE: &str = "fieldwork avx2-goll-gueron";
const DECIMATION8: &str = "AVX-512F 8-decimation";
const DEFAULT: &str = "fieldwork default";

/// The columns this CPU runs: (name, column).
fn columns() -> Vec<(&'static str, group::Column)> {
    let mut out = Vec::new();
    let one_shot = |name: &str, kind| group::Column {
        name: name.into(),
        ours: true,
        kind,
    };
    if GollGueron::new(&[1; 32]).is_some() {
        out.push((
            FAITHFUL,
            one_shot(
                FAITHFUL,
                group::Kind::OneShot(|k, m| Some(GollGueron::new(k)?.tag(m))),
            ),
        ));
    }
    if GollGueron::new(&[1; 32]).is_some() {
        out.push((
            COMPLETE,
            one_shot(
                COMPLETE,
                group::Kind::OneShot(|k, m| Some(GollGueron::new(k)?.tag_complete(m))),
            ),
        ));
    }
    for (name, backend) in [
        (DECIMATION, "avx2-decimation"),
        (GG_SCHEDULE, "avx2-goll-gueron"),
    ] {
        if let Some(mut c) = group::backend(backend) {
            c.name = name.into();
            out.push((name, c));
        }
    }
    if Decimation8::new(&[1; 32]).is_some() {
        out.push((
            DECIMATION8,
            one_shot(
                DECIMATION8,
                group::Kind::OneShot(|k, m| Some(Decimation8::new(k)?.tag(m))),
            ),
        ));
    }
    let mut best = group::best_column();
    best.name = DEFAULT.into();
    out.push((DEFAULT, best));
    out
}

fn size(n: usize) -> String {
    format!("{n} B")
}

fn cases() -> Result<Vec<Case>, String> {
    let columns = columns();
    if !columns.iter().any(|(n, _)| *n == FAITHFUL) {
        return Err("no AVX2 here (or FIELDWORK_MAX_ISA below avx2): nothing to reproduce".into());
    }
    let all: Vec<usize> = PRINTED.iter().flat_map(|r| lengths(r.1)).collect();
    let longest = all.iter().copied().max().unwrap_or(0);
    let (key, data) = group::key_and_data(longest);
    for (_, c) in &columns {
        group::check(c, &key, &data, all.iter().copied().chain(0..=130))?;
    }
    all.iter()
        .map(|&n| {
            Ok(Case {
                group: GROUP,
                size: size(n),
                bytes: Some(n as u64),
                impls: columns
                    .iter()
                    .map(|(name, c)| {
                        Ok(Impl {
                            name: (*name).into(),
                            ours: true,
                            routine: group::routine(c.kind, key, data[..n].to_vec())?,
                        })
                    })
                    .collect::<Result<_, String>>()?,
                heavy: false,
                per_second: None,
            })
        })
        .collect()
}

/// `base ÷ col` (cycles) at each timed length of a band that has both.
fn ratios(m: &Measurements, band: (usize, usize), base: &str, col: &str) -> Vec<(usize, f64)> {
    lengths(band)
        .filter_map(|n| {
            let b = m.cycles(GROUP, &size(n), base)?;
            let c = m.cycles(GROUP, &size(n), col)?;
            Some((n, b / c))
        })
        .collect()
}

/// Mean and largest speed-up in % (`(ratio − 1)·100`) with its length,
/// and the smallest.
/// Mean, (largest, at length), (smallest, at length), in %.
type Summary = (f64, (f64, usize), (f64, usize));

fn summary(r: &[(usize, f64)]) -> Option<Summary> {
    if r.is_empty() {
        return None;
    }
    let pct = |x: f64| (x - 1.0) * 100.0;
    let mean = r.iter().map(|p| pct(p.1)).sum::<f64>() / r.len() as f64;
    let max = r.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let min = r.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1))?;
    Some((mean, (pct(max.1), max.0), (pct(min.1), min.0)))
}

fn pct_cell(s: Option<Summary>) -> String {
    s.map_or("–".into(), |(mean, (max, at), _)| {
        format!("{mean:.1} (max {max:.1} at {at} B)")
    })
}

fn tables(m: &Measurements) -> Result<Vec<Table>, String> {
    let mut t1 = Table {
        title: "§1: speed-up of complete 4-decimation over Goll–Gueron per band (%)".into(),
        text: "The dissertation's results (§1, repeated in §5's Tables 1–2 and \
               Figures 1 and 8, whose data are not in the text): mean and \
               largest speed-up of its complete 4-decimation over Goll and \
               Gueron's AVX2 code per band of message lengths. Ours, at 16 \
               lengths a band (steps of 61 bytes, covering 16 residues mod \
               64), over the faithful Goll–Gueron of §3 \
               (`poly1305::goll_gueron`): the reproduction proper, complete \
               4-decimation on the same §3 kernel \
               (`GollGueron::tag_complete`: only §3.3's fresh packing \
               replaced by prepended zero blocks); fieldwork's \
               `avx2-decimation` schedule (its own vector loop); the \
               AVX-512F 8-decimation; and fieldwork's default. Speed-up = Goll–Gueron's cycles ÷ the \
               other's − 1, in % (the text does not define it; this is the \
               usual reading). Every length of 49–4000 B: \
               `peer-bench --poly1305-sweep` (`docs/benchmarks/poly1305-sweep-*`)."
            .into(),
        header: super::header(&[
            "band",
            "printed Skylake mean (max)",
            "printed Kaby Lake mean (max)",
            "4-decimation on §3's kernel over faithful GG, this CPU: mean (max)",
            "avx2-decimation over faithful GG: mean (max)",
            "AVX-512F 8-decimation over faithful GG: mean (max)",
            "default over faithful GG: mean (min)",
        ]),
        rows: Vec::new(),
        notes: Vec::new(),
    };
    let mut default_slower = Vec::new();
    let mut against_printed = Vec::new();
    for (band, bounds, sky, sky_max, kaby, kaby_max) in PRINTED {
        let same = summary(&ratios(m, bounds, FAITHFUL, COMPLETE));
        if let Some((mean, ..)) = same {
            against_printed.push((band, mean, sky, kaby));
        }
        let dec = summary(&ratios(m, bounds, FAITHFUL, DECIMATION));
        let d8 = summary(&ratios(m, bounds, FAITHFUL, DECIMATION8));
        let def_r = ratios(m, bounds, FAITHFUL, DEFAULT);
        default_slower.extend(def_r.iter().filter(|p| p.1 < 1.0).copied());
        let def = summary(&def_r).map_or("–".into(), |(mean, _, (min, at))| {
            format!("{mean:.1} (min {min:.1} at {at} B)")
        });
        t1.rows.push(vec![
            format!("{band} ({}–{} B)", bounds.0, bounds.1),
            format!("{sky:.2} ({sky_max:.2})"),
            format!("{kaby:.2} ({kaby_max:.2})"),
            pct_cell(same),
            pct_cell(dec),
            pct_cell(d8),
            def,
        ]);
    }
    if !against_printed.is_empty() {
        let near: Vec<String> = against_printed
            .iter()
            .map(|(band, ours, sky, kaby)| {
                let lo = sky.min(*kaby) - 2.0;
                let hi = sky.max(*kaby) + 2.0;
                let verdict = if (lo..=hi).contains(ours) {
                    "within 2 points of the printed means"
                } else if ours < &lo {
                    "below the printed means"
                } else {
                    "above the printed means"
                };
                format!("{band}: {ours:.1} % ({verdict})")
            })
            .collect();
        t1.notes.push(format!(
            "Complete 4-decimation on §3's kernel against the printed means: \
             {}. A smaller gain in the first band would come from what the \
             text does not give: §4.4's modified multiplication for block \
             counts ≡ 1 mod 4 (where three zero blocks are prepended and a \
             whole vector step carries one block) is not reproduced, and \
             our fresh packing (scalar limbs, `setr`) may be cheaper than \
             Goll and Gueron's code, which the text does not show; a \
             different CPU alone is no reason (Skylake and this core both \
             issue `vpmuludq` on two ports and lane-crossing shuffles on \
             one).",
            near.join("; ")
        ));
    }
    t1.notes.push(
        "Speed-ups are ratios of medians measured interleaved in the same \
         run: they do not depend on the core-clock estimate in the header, \
         which the cycles/byte figures below do (on a busy machine it can be \
         far off)."
            .into(),
    );
    t1.notes.push(
        "As in the dissertation, the gain shrinks with the length: the \
         fresh-packing cases of §3.3 (up to three extra 4×130 products, each \
         with its packing, reduction and horizontal sum) cost the same at \
         every length, and the 4-decimation loop's share grows."
            .into(),
    );
    t1.notes.push(
        "The column to compare with the printed figures is the 4-decimation \
         on §3's kernel: the same code as the faithful Goll–Gueron but for \
         the remainder. `avx2-decimation` is fieldwork's own AVX2 loop (five \
         limb registers, two or three groups per iteration, the final \
         partial block in the last vector group): most of its gain is that \
         loop's, not complete decimation's; against fieldwork's Goll–Gueron \
         schedule of the same loop (`avx2-goll-gueron`, the remainder on \
         the scalar loop while the powers are computed) see the next table."
            .into(),
    );
    if default_slower.is_empty() {
        t1.notes.push(
            "fieldwork's default is at least as fast as the faithful \
             Goll–Gueron at every timed length."
                .into(),
        );
    } else {
        let list: Vec<String> = default_slower
            .iter()
            .map(|(n, r)| format!("{n} B ({r:.3}×)"))
            .collect();
        t1.notes.push(format!(
            "fieldwork's default is slower than the faithful Goll–Gueron at: \
             {} (ratio faithful ÷ default).",
            list.join(", ")
        ));
    }

    let mut t2 = Table {
        title: "§5: cycles per byte per band (Figures 2–7)".into(),
        text: "The dissertation plots cycles/byte against the length for the \
               two codes (Figures 2–7 Skylake, 9–14 Kaby Lake) and prints \
               \"some results\" in Tables 1–2 (pages 31 and 35); none of \
               their numbers is in the text, so the printed column is \
               empty. Ours: the mean cycles/byte over the band's 16 timed \
               lengths, key setup included (a one-time key per message)."
            .into(),
        header: super::header(&[
            "band",
            "printed",
            FAITHFUL,
            COMPLETE,
            GG_SCHEDULE,
            DECIMATION,
            DECIMATION8,
            DEFAULT,
        ]),
        rows: Vec::new(),
        notes: Vec::new(),
    };
    for (band, bounds, ..) in PRINTED {
        let mean = |col: &str| {
            let v: Vec<f64> = lengths(bounds)
                .filter_map(|n| m.cycles_per_byte(GROUP, &size(n), col))
                .collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        };
        t2.rows.push(vec![
            format!("{band} ({}–{} B)", bounds.0, bounds.1),
            "not in the text".into(),
            cell(mean(FAITHFUL)),
            cell(mean(COMPLETE)),
            cell(mean(GG_SCHEDULE)),
            cell(mean(DECIMATION)),
            cell(mean(DECIMATION8)),
            cell(mean(DEFAULT)),
        ]);
    }
    let gg_vs = |col: &str| {
        let r: Vec<(usize, f64)> = PRINTED
            .iter()
            .flat_map(|p| ratios(m, p.1, GG_SCHEDULE, col))
            .collect();
        summary(&r).map(|s| s.0)
    };
    if let Some(x) = gg_vs(DECIMATION) {
        t2.notes.push(format!(
            "Complete decimation over fieldwork's own Goll–Gueron schedule \
             (the same vector loop, the n mod 4 head blocks on the scalar \
             loop while the powers are computed): {x:.1} % on average over \
             all timed lengths — the decimation's own gain once the \
             remainder no longer needs §3.3's fresh packing."
        ));
    }
    t2.notes.push(
        "The AVX-512F 8-decimation (§1's 512-bit vectorization; its §6 is \
         not in the text) runs radix 2^26 with one limb a zmm register and \
         one 128-byte group a step: `vpmuludq` on zmm, no IFMA. fieldwork's \
         default on a CPU with IFMA is the radix-2^44 IFMA backend."
            .into(),
    );

    let t3 = Table {
        title: "§3.4: operation count of the 4×130 multiplication".into(),
        text: "The text's table after step 25, and the same counts in our \
               `mul_4x130` and its operands (computed from the code: \
               `poly1305::goll_gueron::MUL_4X130_OPS`, checked against the \
               source by a unit test)."
            .into(),
        header: super::header(&["intrinsic", "printed", "ours"]),
        rows: MUL_4X130_OPS
            .iter()
            .map(|(name, printed, ours)| {
                vec![format!("`{name}`"), printed.to_string(), ours.to_string()]
            })
            .collect(),
        notes: vec![
            "The printed steps give their multipliers one index low for every \
             `5·g` product of limbs 2–4 (and step 24's), and add step 23 to \
             the wrong chain; ours follow formula (1) (§3.1) and the module \
             docs list each correction."
                .into(),
            "The text names neither the swap's intrinsic nor a place for the \
             four `permute4x64`: ours swaps with `shuffle_epi32` and uses \
             `permute4x64` (two per 64-byte group) only to load blocks into \
             §3.2's lane order."
                .into(),
        ],
    };

    let t4 = Table {
        title: "Not reproduced".into(),
        text: "§4 (revisiting 4-decimation, the modified multiplication for \
               block counts ≡ 1 mod 4 of §4.4), §5 (its Tables 1 and 2, the \
               measuring environment) and §6 (512-bit) are beyond the point \
               where the text breaks off (inside §3.5); their figures cannot \
               be compared, and §4.4's modified multiplication cannot be \
               built from the text. The Kaby Lake and Skylake figures of §1 \
               are the only printed results."
            .into(),
        header: Vec::new(),
        rows: Vec::new(),
        notes: Vec::new(),
    };
    Ok(vec![t1, t2, t3, t4])
}
