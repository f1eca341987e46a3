// Secret tokens: a recognisable prefix plus 32 random bytes; only their SHA-256 is stored.
import { createHash, randomBytes } from "node:crypto";

export type TokenPrefix =
  | "till_oat_"
  | "till_pat_"
  | "till_c_"
  | "till_cl_"
  | "till_cst_"
  | "till_cev_"
  | "till_ci_"
  | "till_cs_"
  | "till_seat_"
  | "till_ac_"
  | "till_at_u_"
  | "till_at_o_"
  | "till_rt_u_"
  | "till_rt_o_";

export function newToken(prefix: TokenPrefix): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
