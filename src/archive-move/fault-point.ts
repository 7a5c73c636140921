// Crash points for the archive's crash-safety tests: a process started with VERDICT_FAULT_POINT=<name>
// kills itself (SIGKILL, no cleanup) when it reaches that point, as a power cut there would.
export type FaultPoint = "archive-before-delete" | "dead-letters-before-record";

const armed = process.env.VERDICT_FAULT_POINT;

export function faultPoint(name: FaultPoint): void {
  if (armed === name) process.kill(process.pid, "SIGKILL");
}
