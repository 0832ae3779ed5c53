//! What a sampled `gpulint run` profiled: the plan of which launches ncu profiles
//! ([`Sample`]), and what the run says of it afterwards ([`SampleInfo`]). A leaf: the
//! profiling stage plans it, ncu's arguments carry it out, the reports state it.

/// Which launches a sampled `gpulint run` profiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sample {
    /// Per kernel: its first 3 launches, then its launches 4, 8, 16, 32, ... (ncu's
    /// `--kernel-id` with an alternation of launch numbers): a kernel launched N times is
    /// profiled about 1 + log2(N) times, whatever its grids. The sample when no launch
    /// trace says where the GPU time goes.
    Spread,
    /// Per kernel, the launches with these numbers, which the launch trace chose by GPU
    /// time (`crate::profile::sampling::by_time`): a launch near the median of each configuration
    /// that carries the time, until they cover most of it.
    ByTime(Chosen),
    /// The first N launches of each launch configuration (ncu's `--filter-mode
    /// per-launch-config`): unbounded when the grid changes every launch.
    PerConfig(u64),
    /// The launches the launch tracer profiled in the traced run itself (one run of the
    /// program: `crate::profile::one_run`), by their number in the program's launch order
    /// (the trace's, from 0), sorted.
    Traced(Vec<u64>),
}

/// The launches a sample by time takes: of the `kernels` named (all, when `None`), the
/// launches with these `numbers` among each kernel's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    /// Launch numbers per kernel, from 1, sorted.
    pub numbers: Vec<u64>,
    /// The kernels' mangled names, as the launch tracer recorded them (ncu matches them
    /// with `--kernel-name-base mangled`).
    pub kernels: Option<Vec<String>>,
}

impl Chosen {
    /// Every kernel's launches with these numbers.
    pub fn numbers(numbers: Vec<u64>) -> Chosen {
        Chosen {
            numbers,
            kernels: None,
        }
    }
}

impl Sample {
    /// The kernels (mangled names) and launch numbers of a sample by time that names its
    /// kernels: then `--source` places its counters by kernel.
    pub fn named_kernels(&self) -> Option<(&[String], &[u64])> {
        match self {
            Sample::ByTime(Chosen {
                kernels: Some(kernels),
                numbers,
            }) => Some((kernels, numbers)),
            _ => None,
        }
    }

    /// The launch numbers the spread profiles, in order, up to the largest a run could
    /// reach.
    pub fn spread_invocations() -> impl Iterator<Item = u64> {
        [1, 2, 3].into_iter().chain((2..31).map(|k| 1u64 << k))
    }

    /// The launch numbers (per kernel, from 1) a sample by kernel profiles, sorted; none
    /// for a sample per configuration.
    pub fn invocations(&self) -> Vec<u64> {
        match self {
            Sample::Spread => Self::spread_invocations().collect(),
            Sample::ByTime(chosen) => chosen.numbers.clone(),
            Sample::PerConfig(_) | Sample::Traced(_) => Vec::new(),
        }
    }

    /// Which launches were profiled, for the report's sample line.
    pub fn describe(&self) -> String {
        match self {
            Sample::Spread => "launches 1, 2, 3, 4, 8, 16, ... of each kernel".into(),
            Sample::ByTime(_) => "a launch near the median of each configuration, in order of \
                                  GPU time, chosen from the launch trace"
                .into(),
            Sample::PerConfig(1) => "the first launch of each launch configuration".into(),
            Sample::PerConfig(n) => format!("the first {n} of each launch configuration"),
            Sample::Traced(_) => "launches the launch tracer profiled as they came, in the \
                                  program's one run"
                .into(),
        }
    }

    /// The sample as one word, for the record a saved run keeps (`crate::profile::saved_run`):
    /// `spread`, `by-time:3,17,40`, `by-time:3,17;_Z4axpyPKfPffi,_Z4stepPfi` (of those
    /// kernels) or `per-config:3`.
    pub fn token(&self) -> String {
        match self {
            Sample::Spread => "spread".into(),
            Sample::ByTime(chosen) => {
                let numbers: Vec<String> = chosen.numbers.iter().map(u64::to_string).collect();
                match &chosen.kernels {
                    None => format!("by-time:{}", numbers.join(",")),
                    Some(kernels) => format!("by-time:{};{}", numbers.join(","), kernels.join(",")),
                }
            }
            Sample::PerConfig(n) => format!("per-config:{n}"),
            Sample::Traced(numbers) => {
                let numbers: Vec<String> = numbers.iter().map(u64::to_string).collect();
                format!("traced:{}", numbers.join(","))
            }
        }
    }

    /// The sample a [`Sample::token`] names. A record of an earlier gpulint, whose spread
    /// added launch numbers (`spread:6,0,0,0,0,0,0,0`), reads as the launches it took.
    pub fn from_token(token: &str) -> Option<Sample> {
        if token == "spread" {
            return Some(Sample::Spread);
        }
        let (kind, value) = token.split_once(':')?;
        let (value, kernels) = match value.split_once(';') {
            Some((numbers, kernels)) => (numbers, Some(kernels)),
            None => (value, None),
        };
        let numbers = || -> Option<Vec<u64>> {
            value
                .split(',')
                .map(|n| n.parse().ok())
                .collect::<Option<Vec<u64>>>()
        };
        // Launch numbers as a sample takes them: some, each once, in order.
        let ascending = || numbers().filter(|n| !n.is_empty() && n.is_sorted_by(|a, b| a < b));
        match kind {
            "per-config" => value.parse().ok().map(Sample::PerConfig),
            "traced" if kernels.is_none() => ascending().map(Sample::Traced),
            "by-time" => {
                let numbers = ascending().filter(|n| n[0] > 0)?;
                let kernels = kernels.map(|k| k.split(',').map(String::from).collect());
                Some(Sample::ByTime(Chosen { numbers, kernels }))
            }
            "spread" => {
                let added = numbers()?;
                if added.len() != 8 {
                    return None;
                }
                let mut all: Vec<u64> = Self::spread_invocations()
                    .chain(added.into_iter().filter(|&n| n > 0))
                    .collect();
                all.sort_unstable();
                all.dedup();
                Some(if all.len() == Self::spread_invocations().count() {
                    Sample::Spread
                } else {
                    Sample::ByTime(Chosen::numbers(all))
                })
            }
            _ => None,
        }
    }

    /// The name machine formats give it.
    pub fn name(&self) -> &'static str {
        match self {
            Sample::Spread => "spread",
            Sample::ByTime(_) => "by-time",
            Sample::PerConfig(_) => "per-config",
            Sample::Traced(_) => "traced",
        }
    }
}

/// How the profiled program ended, under ncu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgramEnd {
    /// Its own exit, with this status.
    Exited(i32),
    /// Killed by a signal it did not ask gpulint for (a crash, the OOM killer).
    Signalled,
    /// Ended by ncu once the sample was profiled, as `--stop-once-profiled` and
    /// `--window` ask: its status says nothing of the program.
    StoppedOnPurpose,
}

impl ProgramEnd {
    /// From the profiled run's status (`None`: a signal), `stopped` where gpulint had
    /// ncu end it.
    pub fn of(status: Option<i32>, stopped: bool) -> ProgramEnd {
        match (status, stopped) {
            (Some(0), _) => ProgramEnd::Exited(0),
            (_, true) => ProgramEnd::StoppedOnPurpose,
            (Some(code), false) => ProgramEnd::Exited(code),
            (None, false) => ProgramEnd::Signalled,
        }
    }

    /// Whether the program failed: a status other than 0, or a signal. Its report is
    /// then of the kernels it ran before that, and gpulint exits 3.
    pub fn failed(self) -> bool {
        matches!(self, ProgramEnd::Exited(c) if c != 0) || self == ProgramEnd::Signalled
    }

    /// The program's end in the report's words.
    pub fn describe(self) -> String {
        match self {
            ProgramEnd::Exited(code) => format!("exited with status {code}"),
            ProgramEnd::Signalled => "was killed by a signal".to_string(),
            ProgramEnd::StoppedOnPurpose => {
                "was ended by ncu once the sample was profiled".to_string()
            }
        }
    }
}

/// What the reports say of a sampled run: which launches were profiled, and, when every
/// launch was counted first (launch trace or timing pass), how many of them the sample took.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SampleInfo {
    /// How the program ended under ncu: `gpulint run` only.
    pub program_end: Option<ProgramEnd>,
    /// Which object launched each kernel the launch trace counted (kernel name, object):
    /// the origin of a finding judged from the trace alone, on a kernel the sample did
    /// not profile, rests on it as a profiled kernel's does.
    pub traced_objects: Vec<(String, std::sync::Arc<str>)>,
    /// Which launches the sample profiled; times and shares are of those unless every
    /// launch was counted.
    pub sample: Option<Sample>,
    /// With every launch counted, how many launches the sample profiled; the profile's
    /// launch count then counts every launch of the run.
    pub profiled_launches: Option<u64>,
    /// What counted every launch then: `launch trace` or `timing pass`.
    pub every_launch_counted_by: Option<&'static str>,
    /// How many launches it counted: the profile's own count leaves out the kernels a
    /// sample by time did not profile.
    pub counted_launches: Option<u64>,
    /// With a sample by time, how much of the counted GPU time it profiled.
    pub coverage: Option<Coverage>,
    /// GPU time counted of kernels the sample did not profile at all (a sample by time
    /// leaves out the kernels with the least): in the total, in no kernel's share.
    pub unprofiled_ns: f64,
}

/// How much of the counted GPU time a sample by time profiled, and what it left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Coverage {
    /// Share (0 to 1) of the counted GPU time in configurations with a profiled launch.
    pub profiled_share: f64,
    /// The kernels with configurations that had none, the most GPU time first.
    pub left_out: Vec<LeftOut>,
}

/// A kernel's configurations that a sample by time did not profile.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    pub kernel: String,
    /// Their share (0 to 1) of the counted GPU time.
    pub share: f64,
    pub configurations: u64,
    pub launches: u64,
    pub because: LeftOutBecause,
}

/// Why a sample by time holds no launch of a kernel's configurations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeftOutBecause {
    /// NCCL's collectives, which hang under ncu's replay, are left out unless asked.
    Nccl,
    /// Other configurations of the kernel were profiled, and stand for these.
    OtherConfigurationsProfiled,
    /// The kernel has under [`KERNEL_SHARE_PCT`]% of the GPU time: no launch of its own.
    SmallShare,
    /// The cap on launches went to kernels with more of the time.
    LaunchCap,
    /// Launched while the launch tracer had profiled as many launches as it profiles in
    /// one run (`crate::profile::one_run::MOST_LAUNCHES`), or for as long as its budget
    /// allows (launch_tracer_counters.inc).
    AfterTracerCap,
}

/// A share of 0 to 1 as a percentage with one decimal, "<0.1%" where it rounds to 0: how
/// the reports and notes give a sample's shares of the GPU time.
pub fn percent(share: f64) -> String {
    let pct = 100.0 * share;
    if pct > 0.0 && pct < 0.05 {
        "<0.1%".into()
    } else {
        format!("{pct:.1}%")
    }
}

/// The share of the GPU time (%) from which a kernel gets a launch of its own.
pub const KERNEL_SHARE_PCT: f64 = 1.0;

impl LeftOutBecause {
    pub fn describe(self) -> &'static str {
        match self {
            LeftOutBecause::Nccl => "NCCL's, which hang under ncu's replay (--profile-nccl)",
            LeftOutBecause::OtherConfigurationsProfiled => {
                "other configurations of the kernel were profiled"
            }
            LeftOutBecause::SmallShare => "under 1% of the GPU time: no launch of its own",
            LeftOutBecause::LaunchCap => "past the launch cap (--max-launches profiles more)",
            LeftOutBecause::AfterTracerCap => {
                "past the tracer's cap of launches or its profiling budget in one run \
                 (--two-runs has ncu profile them by GPU time)"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_reads_back_from_its_token() {
        for s in [
            Sample::Spread,
            Sample::ByTime(Chosen::numbers(vec![3, 17, 40])),
            Sample::ByTime(Chosen {
                numbers: vec![2, 9],
                kernels: Some(vec!["_Z4axpyPKfPffi".into(), "_Z4stepPfi".into()]),
            }),
            Sample::PerConfig(3),
            Sample::Traced(vec![0, 5, 17]),
        ] {
            assert_eq!(
                Sample::from_token(&s.token()),
                Some(s.clone()),
                "{}",
                s.token()
            );
        }
        assert_eq!(Sample::from_token("spread:1,2"), None);
        assert_eq!(Sample::from_token("by-time:4,2"), None);
        assert_eq!(Sample::from_token("by-time:0,2"), None);
        assert_eq!(Sample::from_token("every"), None);
        assert_eq!(Sample::from_token("traced:5,0"), None);
        assert_eq!(Sample::from_token("traced:0;_Z4stepPfi"), None);
    }

    /// A saved run of the earlier spread, which added the longest launches of busy
    /// kernels, reads as the launches it took.
    #[test]
    fn an_earlier_spread_reads_as_its_launches() {
        assert_eq!(
            Sample::from_token("spread:0,0,0,0,0,0,0,0"),
            Some(Sample::Spread)
        );
        let Some(Sample::ByTime(chosen)) = Sample::from_token("spread:6,0,0,0,0,0,0,0") else {
            panic!("not read as launch numbers");
        };
        assert_eq!(chosen.numbers[..6], [1, 2, 3, 4, 6, 8]);
    }

    #[test]
    fn the_spread_takes_the_first_launches_then_powers_of_two() {
        let first: Vec<u64> = Sample::spread_invocations().take(7).collect();
        assert_eq!(first, [1, 2, 3, 4, 8, 16, 32]);
        assert_eq!(Sample::spread_invocations().last(), Some(1 << 30));
    }
}
