//! Open MPI's settings that the protocol's messages need, made before MPI starts.
//!
//! Open MPI sends a message between ranks on one machine at once only up to its shared-memory
//! transport's eager limit (4 KiB by default); a larger one goes by rendezvous, which moves
//! only while both ranks are inside MPI calls. A result with its solved subtrees and its
//! subtree's snapshot, or a job with what other ranks solved, is often larger. Rank 0 looks at
//! its messages every [`super::IDLE`], and a worker rank's main thread searches between its
//! looks, so each rendezvous waits for both in turn, and the rank's other threads wait for
//! their next jobs meanwhile: with the default limit, ranks of four threads on one machine left
//! their workers idle much of the time, and with 64 KiB hardly at all (BENCHMARKS.md,
//! "Scaling"). Between machines Open MPI's TCP eager limit is 64 KiB already.

/// The shared-memory eager limit this program asks for, in bytes.
const SHARED_MEMORY_EAGER_LIMIT: usize = 64 * 1024;

/// The environment variables through which Open MPI reads that limit: its shared-memory
/// transport is `vader` in Open MPI 4 and `sm` from Open MPI 5 on. Other MPI libraries ignore
/// them.
const EAGER_LIMIT_VARIABLES: [&str; 2] = [
    "OMPI_MCA_btl_vader_eager_limit",
    "OMPI_MCA_btl_sm_eager_limit",
];

/// Asks Open MPI for a shared-memory eager limit of [`SHARED_MEMORY_EAGER_LIMIT`], unless the
/// user set one under either name (with `mpirun --mca`, which passes it in the same
/// variables, or in the environment): Open MPI 5 reads both names for one setting, so setting
/// the other could override the user's. Call it before MPI is initialised, while this process
/// runs one thread: it changes the environment, which Open MPI reads as it starts.
pub fn ask_for_large_eager_messages() {
    for (variable, value) in settings_to_make(|variable| std::env::var_os(variable).is_some()) {
        std::env::set_var(variable, value);
    }
}

/// The variables (with their values) that [`ask_for_large_eager_messages`] sets, given which
/// are set already: all of them, or none if any is set.
fn settings_to_make(is_set: impl Fn(&str) -> bool) -> Vec<(&'static str, String)> {
    if EAGER_LIMIT_VARIABLES
        .iter()
        .any(|variable| is_set(variable))
    {
        return Vec::new();
    }
    EAGER_LIMIT_VARIABLES
        .into_iter()
        .map(|variable| (variable, SHARED_MEMORY_EAGER_LIMIT.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eager_limit_is_asked_for_under_both_names_unless_the_user_set_one() {
        assert_eq!(
            settings_to_make(|_| false),
            vec![
                ("OMPI_MCA_btl_vader_eager_limit", "65536".to_string()),
                ("OMPI_MCA_btl_sm_eager_limit", "65536".to_string()),
            ]
        );
        for set in EAGER_LIMIT_VARIABLES {
            assert!(
                settings_to_make(|variable| variable == set).is_empty(),
                "{set} set by the user (mpirun --mca) stays the only setting"
            );
        }
    }
}
