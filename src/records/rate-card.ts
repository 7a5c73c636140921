// Rate cards (Variant B): a price per agent, in integer minor units of one currency (like Stripe amounts).

export interface RateCardEntry {
  agent_key: string;
  unit_amount: number;
}

export interface RateCardRecord {
  key: string;
  /** ISO 4217 code, upper case. */
  currency: string;
  entries: RateCardEntry[];
}
