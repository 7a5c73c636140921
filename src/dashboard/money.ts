// Amounts in integer minor units (as the API stores them) shown in the currency's own format: 250 EUR is
// €2.50, 250 JPY is ¥250.

export function formatMoney(minorUnits: number, currency: string): string {
  try {
    const format = new Intl.NumberFormat("en", { style: "currency", currency });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(minorUnits / 10 ** digits);
  } catch {
    // A code Intl does not know: the raw figure is still right.
    return `${minorUnits} ${currency} (minor units)`;
  }
}
