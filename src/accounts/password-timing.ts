// How long checking a password takes on this process, so that a sign-in for an email with no user can
// answer after as long without running the memory-hard hash: a flood of unknown emails from one network
// then costs timers, not a core, and the answer's timing still does not tell which emails have users.

/** Recent checks kept: the wait for an unknown email is one of their durations, drawn at random. */
const SAMPLES = 32;
/** Unknown-email attempts that check against the decoy hash for real until this many checks were timed. */
const FIRST_REAL = 4;
/** After that, one unknown-email attempt in this many still checks for real, so the samples follow the machine's load. */
const REAL_EVERY = 16;

export class PasswordTiming {
  private readonly samples: number[] = [];
  private next = 0;
  private unknown = 0;

  constructor(private readonly random: () => number = Math.random) {}

  /** Records how long a real check took (ms), queueing for a hashing thread included. */
  record(ms: number): void {
    if (this.samples.length < SAMPLES) this.samples.push(ms);
    else this.samples[this.next] = ms;
    this.next = (this.next + 1) % SAMPLES;
  }

  /** Whether an attempt for an email with no user checks against the decoy hash for real, rather than waits. */
  checkUnknown(): boolean {
    this.unknown++;
    return this.samples.length < FIRST_REAL || this.unknown % REAL_EVERY === 0;
  }

  /** How long an attempt for an email with no user waits instead: a recent check's duration, drawn at random. */
  waitMs(): number {
    return this.samples[Math.floor(this.random() * this.samples.length)] ?? 0;
  }
}
