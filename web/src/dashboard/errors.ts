// The API's validation errors as sentences for people. Polar's 422 detail names a field by its
// path ("prices.0.price_amount") and says what is wrong in the server's terms (minor units, zod's
// wording); the dashboard shows each as "Price must be free or at least $0.50." next to its field.
import { money } from "./format.ts";

export interface FieldProblem {
  /** The field's path in the request body, e.g. "prices.0.price_amount". */
  path: string;
  message: string;
}

/** Field names as a form labels them; anything else is the name with spaces. */
const LABELS: Record<string, string> = {
  price_amount: "Price",
  minimum_amount: "Minimum price",
  maximum_amount: "Maximum price",
  preset_amount: "Suggested price",
  price_currency: "Currency",
  meter_id: "Meter",
  role_id: "Role ID",
  guild_token: "Discord server token",
  repository_owner: "Repository owner",
  repository_name: "Repository name",
  limit_usage: "Usage limit",
  ttl: "Expiry",
  limit: "Activation limit",
  url: "URL",
  files: "Files",
};

function labelOf(path: (string | number)[]): string {
  const name = [...path].reverse().find((p): p is string => typeof p === "string");
  if (!name) return "This value";
  const label = LABELS[name] ?? name.replaceAll("_", " ");
  return label.charAt(0).toUpperCase() + label.slice(1);
}

const sentence = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);

/** One problem of a 422 as a sentence that names the field the way the form does. */
export function humanize(path: (string | number)[], msg: string): string {
  const label = labelOf(path);
  let m = /must be 0 \(free\) or at least (\d+) in (\w+)/.exec(msg);
  if (m) return `${label} must be free or at least ${money(Number(m[1]), m[2])}.`;
  m = /must be 0 \(pay what you want\) or at least (\d+) in (\w+)/.exec(msg);
  if (m) return `${label} must be 0 (pay what you want) or at least ${money(Number(m[1]), m[2])}.`;
  if (msg === "Field required") return `${label} is required.`;
  m = /^Too (small|big): expected (string|array|number|int)\w* to (?:have|be) ([<>]=?)(\d+)/.exec(
    msg,
  );
  if (m) {
    const [, , kind, op, n] = m;
    const bound = op!.startsWith(">") ? "at least" : "at most";
    const unit =
      kind === "string" ? " characters" : kind === "array" ? ` item${n === "1" ? "" : "s"}` : "";
    return `${label} must be ${bound} ${n}${unit}.`;
  }
  if (/^Invalid (UUID|uuid|input)/.test(msg)) return `${label} is not valid.`;
  if (/^must /.test(msg)) return sentence(`${label} ${msg}`);
  if (/^[A-Z]/.test(msg)) return sentence(msg);
  return sentence(`${label}: ${msg}`);
}

/** Polar's error body → the message for the whole request and the problems by field path. */
export function problemsOf(
  status: number,
  body: unknown,
): { message: string; fields: FieldProblem[] } {
  const detail =
    (body as { detail?: unknown; message?: unknown } | null)?.detail ??
    (body as { message?: unknown } | null)?.message;
  if (typeof detail === "string") return { message: detail, fields: [] };
  if (Array.isArray(detail)) {
    const fields = detail.map((d: { loc?: (string | number)[]; msg?: string }) => {
      const path = (d.loc ?? []).filter((p, i) => !(i === 0 && (p === "body" || p === "query")));
      return { path: path.join("."), message: humanize(path, d.msg ?? "is not valid") };
    });
    return { message: fields.map((f) => f.message).join(" "), fields };
  }
  return { message: `Request failed (HTTP ${status})`, fields: [] };
}
