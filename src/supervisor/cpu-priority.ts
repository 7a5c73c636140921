// A worker child that shares its machine with the ingress gives way to it for the CPU: an acknowledgement is
// a client waiting, a fold can wait a few milliseconds and catch up (docs/configuration.md, VERDICT_WORKER_NICE).
import { readdirSync } from "node:fs";
import { setPriority } from "node:os";

/**
 * Sets the nice value of every thread of this process. On Linux nice is per thread (a new thread takes its
 * creator's), so the threads already running (V8's, libuv's) are set one by one; elsewhere the process's.
 */
export function lowerCpuPriority(nice: number): void {
  if (nice <= 0) return;
  let threads: number[];
  try {
    threads = readdirSync("/proc/self/task").map(Number);
  } catch {
    threads = [0];
  }
  for (const thread of threads) {
    try {
      setPriority(thread, nice);
    } catch {
      // A thread that ended since the listing.
    }
  }
}
