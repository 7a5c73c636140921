// Customers (Variant B): who an outcome is billed to, through their rate card.

export interface CustomerRecord {
  key: string;
  name: string;
  rate_card_key: string | null;
}
