// What an outcome carries for its scores: the scores as last computed and the little it needs to go on.

export interface Scores {
  trajectory: number | null;
  anomaly: number | null;
  novelty: number | null;
}

export interface ScoreState extends Scores {
  /**
   * Events seen per trajectory cell while open, as [cell, count, cell, count, ...] (an outcome visits few
   * cells; an array is cheaper to update and to pack than an object): what its verdict adds to the table.
   */
  cells: number[];
  /** The outcome's previous action (as sent), or null before its first event. */
  lastAction: string | null;
  /** The instant of the outcome's previous event, for the gap feature. */
  lastAt: number | null;
  /** Sum of the normalized surprisal of the transitions scored so far, and how many. */
  surprisal: number;
  steps: number;
}

/** The three scores alone, copied. */
export function scoresOf(state: Scores): Scores {
  return { trajectory: state.trajectory, anomaly: state.anomaly, novelty: state.novelty };
}

export function freshScoreState(): ScoreState {
  return {
    trajectory: null,
    anomaly: null,
    novelty: null,
    cells: [],
    lastAction: null,
    lastAt: null,
    surprisal: 0,
    steps: 0,
  };
}
