// How many ingress and worker processes `verdict serve` (role all) runs: one ingress per core less one (at
// least one), the workers on the rest (at least one), each overridable.

export interface ProcessPlan {
  ingress: number;
  worker: number;
}

export function processPlan(
  cores: number,
  overrides: { ingress: number | undefined; worker: number | undefined },
): ProcessPlan {
  const ingress = overrides.ingress ?? Math.max(1, cores - 1);
  const worker = overrides.worker ?? Math.max(1, cores - ingress);
  return { ingress, worker };
}
