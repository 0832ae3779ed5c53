//! What a sampled `gpulint run` profiled: the plan of which launches ncu profiles
//! ([`Sample`]), and what the run says of it afterwards ([`SampleInfo`]). A leaf: the
//! profiling stage plans it, ncu's arguments carry it out, the reports state it.

/// Launch numbers a time-aware spread adds to its powers of two, 0 where none: the
/// longest launches of the kernels that carry the GPU time, which the launch trace named
/// before ncu ran.
pub type ExtraLaunches = [u64; 8];

/// Which launches a sampled `gpulint run` profiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sample {
    /// Per kernel: its first 3 launches, then its launches 4, 8, 16, 32, ... (ncu's
    /// `--kernel-id` with an alternation of launch numbers): a kernel launched N times is
    /// profiled about 1 + log2(N) times, whatever its grids. With launch numbers added,
    /// those launches of every kernel too.
    Spread(ExtraLaunches),
    /// The first N launches of each launch configuration (ncu's `--filter-mode
    /// per-launch-config`): unbounded when the grid changes every launch.
    PerConfig(u64),
}

impl Sample {
    /// The spread of powers of two alone.
    pub const SPREAD: Sample = Sample::Spread([0; 8]);

    /// The launch numbers a spread without additions profiles, in order, up to the
    /// largest a run could reach.
    pub fn spread_invocations() -> impl Iterator<Item = u64> {
        [1, 2, 3].into_iter().chain((2..31).map(|k| 1u64 << k))
    }

    /// The launch numbers (per kernel, from 1) a spread profiles, sorted; none for a
    /// sample per configuration.
    pub fn invocations(self) -> Vec<u64> {
        let Sample::Spread(extra) = self else {
            return Vec::new();
        };
        let mut all: Vec<u64> = Self::spread_invocations()
            .chain(extra.into_iter().filter(|&n| n > 0))
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// Which launches were profiled, for the report's sample line.
    pub fn describe(self) -> String {
        match self {
            Sample::Spread(extra) => {
                let added: Vec<String> = extra
                    .iter()
                    .filter(|&&n| n > 0)
                    .map(u64::to_string)
                    .collect();
                let base = "launches 1, 2, 3, 4, 8, 16, ... of each kernel";
                if added.is_empty() {
                    base.into()
                } else {
                    format!(
                        "{base}, and its launches {} (where the launch trace found the longest \
                         launches of the kernels with the most GPU time)",
                        added.join(", ")
                    )
                }
            }
            Sample::PerConfig(1) => "the first launch of each launch configuration".into(),
            Sample::PerConfig(n) => format!("the first {n} of each launch configuration"),
        }
    }

    /// The sample as one word, for the record a saved run keeps (`crate::saved_run`):
    /// `spread:6,0,0,0,0,0,0,0` or `per-config:3`.
    pub fn token(self) -> String {
        match self {
            Sample::Spread(extra) => format!("spread:{}", extra.map(|n| n.to_string()).join(",")),
            Sample::PerConfig(n) => format!("per-config:{n}"),
        }
    }

    /// The sample a [`Sample::token`] names.
    pub fn from_token(token: &str) -> Option<Sample> {
        let (kind, value) = token.split_once(':')?;
        match kind {
            "per-config" => value.parse().ok().map(Sample::PerConfig),
            "spread" => {
                let numbers: Vec<u64> = value
                    .split(',')
                    .map(str::parse)
                    .collect::<std::result::Result<_, _>>()
                    .ok()?;
                Some(Sample::Spread(numbers.try_into().ok()?))
            }
            _ => None,
        }
    }

    /// The name machine formats give it.
    pub fn name(self) -> &'static str {
        match self {
            Sample::Spread(_) => "spread",
            Sample::PerConfig(_) => "per-config",
        }
    }
}

/// What the reports say of a sampled run: which launches were profiled, and, when every
/// launch was counted first (launch trace or timing pass), how many of them the sample took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SampleInfo {
    /// Which launches the sample profiled; times and shares are of those unless every
    /// launch was counted.
    pub sample: Option<Sample>,
    /// With every launch counted, how many launches the sample profiled; the profile's
    /// launch count then counts every launch of the run.
    pub profiled_launches: Option<u64>,
    /// What counted every launch then: `launch trace` or `timing pass`.
    pub every_launch_counted_by: Option<&'static str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_reads_back_from_its_token() {
        for s in [
            Sample::SPREAD,
            Sample::Spread([6, 9, 0, 0, 0, 0, 0, 0]),
            Sample::PerConfig(3),
        ] {
            assert_eq!(Sample::from_token(&s.token()), Some(s), "{}", s.token());
        }
        assert_eq!(Sample::from_token("spread:1,2"), None);
        assert_eq!(Sample::from_token("every"), None);
    }

    #[test]
    fn the_spread_takes_the_first_launches_then_powers_of_two() {
        let first: Vec<u64> = Sample::spread_invocations().take(7).collect();
        assert_eq!(first, [1, 2, 3, 4, 8, 16, 32]);
        assert_eq!(Sample::spread_invocations().last(), Some(1 << 30));
    }
}
