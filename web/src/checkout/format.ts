// Amounts in the buyer's locale (the browser's) and the checkout's currency.
export function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, {
      style: "currency",
      currency: currency.toUpperCase(),
    }).format(amount / 100);
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

/** A unit price in minor units given as a decimal string ("0.5" cents is $0.005), in full. */
export function unitMoney(unitAmount: string, currency: string): string {
  const major = Number(unitAmount) / 100;
  try {
    return new Intl.NumberFormat(undefined, {
      style: "currency",
      currency: currency.toUpperCase(),
      maximumFractionDigits: 12,
    }).format(major);
  } catch {
    return `${major} ${currency.toUpperCase()}`;
  }
}

/** " / month" for a recurring price, "" for a one-time one. */
export function perInterval(recurring: string | null): string {
  return recurring ? ` / ${recurring}` : "";
}

/** Where a checkout without its own success URL sends the buyer: till's confirmation page. */
export function confirmationPath(secret: string): string {
  return `/checkout/${encodeURIComponent(secret)}/confirmation`;
}
export const interval = perInterval;
