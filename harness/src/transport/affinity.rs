//! Puts a driving thread, and the child it then spawns, on one CPU.
//!
//! The harness and an implementation take strict turns: a request, then its
//! answer. When the two run on different CPUs, every turn wakes an idle CPU
//! (an inter-processor interrupt and, in a VM, an exit from halt); on one
//! CPU a turn is a direct switch. On the 2-core VM of BENCHMARKS.md that is
//! the difference between about 90 µs and 20 µs per round trip.

use rustix::thread::{sched_getaffinity, sched_getcpu, sched_setaffinity, CpuSet};

/// Pins the calling thread to the `n`-th of the CPUs it may run on (modulo
/// their count). A child spawned afterwards inherits the pinning. Returns
/// the CPU, or `None` when the system refuses (nothing changed then).
pub fn pin_current_thread(n: usize) -> Option<usize> {
    let allowed = sched_getaffinity(None).ok()?;
    let cpus: Vec<usize> = (0..CpuSet::MAX_CPU)
        .filter(|&cpu| allowed.is_set(cpu))
        .collect();
    let cpu = *cpus.get(n % cpus.len().max(1))?;
    let mut one = CpuSet::new();
    one.set(cpu);
    sched_setaffinity(None, &one).ok()?;
    Some(cpu)
}

/// Pins the calling thread to the CPU it is running on now, so that
/// independent runs started side by side stay where the scheduler spread
/// them. Returns the CPU, or `None` when the system refuses.
pub fn pin_current_thread_here() -> Option<usize> {
    let cpu = sched_getcpu();
    let mut one = CpuSet::new();
    one.set(cpu);
    sched_setaffinity(None, &one).ok()?;
    Some(cpu)
}

/// The CPUs the calling thread may run on.
pub fn allowed_cpus() -> usize {
    sched_getaffinity(None).map_or(1, |set| set.count() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_thread_runs_on_one_allowed_cpu() {
        let before = allowed_cpus();
        let cpu = std::thread::spawn(|| {
            let cpu = pin_current_thread(7);
            (cpu, allowed_cpus())
        })
        .join()
        .expect("thread");
        match cpu {
            (Some(cpu), after) => {
                assert_eq!(after, 1);
                assert!(cpu < CpuSet::MAX_CPU);
            }
            (None, after) => assert_eq!(after, before, "a refusal changes nothing"),
        }
        // The pinning was the spawned thread's own.
        assert_eq!(allowed_cpus(), before);
    }
}
