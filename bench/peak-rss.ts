/**
 * A process's own peak resident set size, for the benches that run each case
 * in a child process (bench/snapshots.ts, bench/duckdb-child.ts).
 *
 * `process.resourceUsage().maxRSS` is not that on Linux: resource usage is
 * "preserved across an execve(2)" (getrusage(2), NOTES), and node spawns a
 * child by forking the bench's own process first, so the child's `maxRSS`
 * starts at the parent's RSS at the spawn. Measured here: a child of a 442 MB
 * parent reported 404 MB while its own RSS was 39 MB; in the DuckDB bench both
 * sides' "peak" was the parent's (the same 169 MB, or 237 MB, for ours and
 * DuckDB's). `VmHWM` in /proc/self/status (proc(5): "Peak resident set size")
 * belongs to the address space, which execve replaces, so it is the child's
 * own; other systems fall back to `maxRSS`.
 */
import { readFileSync } from 'node:fs';

/** The peak RSS of this process since it started (bytes). */
export function peakRssBytes(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]) * 1024;
  } catch {
    // No procfs: not Linux.
  }
  return process.resourceUsage().maxRSS * 1024;
}
