// Stripe's request encoding: application/x-www-form-urlencoded with bracketed keys
// (metadata[checkout_id]=…, expand[0]=payment_method, automatic_payment_methods[enabled]=true).
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type Form = { [key: string]: FormValue };

export function parseForm(body: string): Form {
  const root: Form = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const parts = rawKey.split(/\[|\]\[|\]/).filter((p, i) => i === 0 || p !== "");
    let node: Record<string, FormValue> = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) {
        node[part] = value;
        return;
      }
      const next = node[part];
      if (typeof next !== "object" || next === null) node[part] = {};
      node = node[part] as Record<string, FormValue>;
    });
  }
  return normalizeArrays(root) as Form;
}

/** {0: a, 1: b} → [a, b], as Stripe reads indexed keys. */
function normalizeArrays(value: FormValue): FormValue {
  if (typeof value === "string" || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const out: Record<string, FormValue> = {};
  for (const k of keys) out[k] = normalizeArrays(value[k]!);
  if (keys.length > 0 && keys.every((k, i) => k === String(i))) return keys.map((k) => out[k]!);
  return out;
}

export function str(form: Form, key: string): string | undefined {
  const v = form[key];
  return typeof v === "string" ? v : undefined;
}

export function bool(form: Form, key: string): boolean {
  return str(form, key) === "true";
}

export function record(form: Form, key: string): Record<string, string> {
  const v = form[key];
  if (!v || typeof v !== "object" || Array.isArray(v)) return {};
  return Object.fromEntries(
    Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

export function list(form: Form, key: string): string[] {
  const v = form[key];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === "string");
  return typeof v === "string" ? [v] : [];
}
