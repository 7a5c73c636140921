// Micro-benchmarks in this process: a body run `iterations` times per round, seven rounds, the median
// round's time per call printed in ns. The first rounds warm the JIT up; the median of all is robust to
// them and to a noisy neighbour.

export function measure(name: string, iterations: number, body: (i: number) => void): void {
  const rounds: number[] = [];
  for (let round = 0; round < 7; round++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) body(i);
    rounds.push(((performance.now() - start) * 1e6) / iterations);
  }
  rounds.sort((a, b) => a - b);
  const median = rounds[Math.floor(rounds.length / 2)] ?? NaN;
  console.log(`${name.padEnd(44)} ${median.toFixed(0).padStart(6)} ns/op`);
}
