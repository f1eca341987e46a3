// Polar's ?sorting=-created_at&sorting=name: several criteria, a leading minus for descending.
import { z } from "zod";

export function sortingSchema<const K extends string>(keys: readonly K[], fallback: string[]) {
  const one = z.string().refine((s) => (keys as readonly string[]).includes(s.replace(/^-/, "")), {
    message: `must be one of ${keys.flatMap((k) => [k, `-${k}`]).join(", ")}`,
  });
  return z
    .union([one, z.array(one)])
    .optional()
    .transform((v) => {
      const list = v === undefined ? fallback : Array.isArray(v) ? v : [v];
      return list.map((s) => ({ key: s.replace(/^-/, "") as K, desc: s.startsWith("-") }));
    });
}
