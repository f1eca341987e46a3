// Wire schemas for Polar's /v1/oauth2: OAuth2ClientConfiguration(Update), OAuth2Client, the authorize
// and consent parameters, the form bodies of token/revoke/introspect and their answers.
import { z } from "zod";
import type { oauth2Clients, oauth2Tokens } from "../../../db/schema/index.ts";
import { SCOPES } from "../../lib/scopes.ts";

export type OAuth2ClientRow = typeof oauth2Clients.$inferSelect;
export type OAuth2TokenRow = typeof oauth2Tokens.$inferSelect;

export const SUB_TYPES = ["user", "organization"] as const;
export type SubType = (typeof SUB_TYPES)[number];

const KNOWN_SCOPES: ReadonlySet<string> = new Set(SCOPES);

/** A space-separated scope string of known scopes, as a list without repeats. */
export function scopeList(scope: string): string[] {
  return [...new Set(scope.split(/\s+/).filter(Boolean))];
}

const scopeString = z
  .string()
  .refine((s) => scopeList(s).every((x) => KNOWN_SCOPES.has(x)), "Unknown scope.");

const uri = z.url({ protocol: /^https?$/ }).max(2083);
const redirectUri = z.url().refine((u) => {
  // No fragments (RFC 6749 §3.1.2); plain http only for loopback apps in development. zod runs
  // this check even when the string is no URL at all; the url check has reported that already.
  const url = URL.parse(u);
  if (!url) return true;
  if (url.hash) return false;
  return url.protocol === "https:" || ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
}, "Redirect URIs must be https (or http on localhost) without a fragment.");

export const clientConfiguration = z.object({
  redirect_uris: z.array(redirectUri).min(1),
  token_endpoint_auth_method: z
    .enum(["client_secret_basic", "client_secret_post", "none"])
    .default("client_secret_post"),
  grant_types: z
    .array(z.enum(["authorization_code", "refresh_token"]))
    .default(["authorization_code", "refresh_token"]),
  response_types: z.array(z.literal("code")).default(["code"]),
  scope: scopeString.default(SCOPES.join(" ")),
  client_name: z.string().min(1),
  client_uri: z.string().nullish(),
  logo_uri: uri.nullish(),
  tos_uri: uri.nullish(),
  policy_uri: uri.nullish(),
  default_sub_type: z.enum(SUB_TYPES).default("user"),
});
export type ClientConfiguration = z.output<typeof clientConfiguration>;

export const clientConfigurationUpdate = clientConfiguration.extend({ client_id: z.string() });
export type ClientConfigurationUpdate = z.output<typeof clientConfigurationUpdate>;

export function serializeClient(c: OAuth2ClientRow, clientSecret: string) {
  return {
    redirect_uris: c.redirectUris,
    token_endpoint_auth_method: c.tokenEndpointAuthMethod,
    grant_types: c.grantTypes,
    response_types: c.responseTypes,
    scope: c.scope,
    client_name: c.clientName,
    client_uri: c.clientUri,
    logo_uri: c.logoUri,
    tos_uri: c.tosUri,
    policy_uri: c.policyUri,
    default_sub_type: c.defaultSubType,
    created_at: c.createdAt.toISOString(),
    modified_at: c.modifiedAt?.toISOString() ?? null,
    client_id: c.clientId,
    client_secret: clientSecret,
    client_id_issued_at: Math.floor(c.createdAt.getTime() / 1000),
    // Secrets do not expire (RFC 7591: 0 means never).
    client_secret_expires_at: 0,
  };
}

export function serializeClientPublic(c: OAuth2ClientRow) {
  return {
    created_at: c.createdAt.toISOString(),
    modified_at: c.modifiedAt?.toISOString() ?? null,
    client_id: c.clientId,
    client_name: c.clientName,
    client_uri: c.clientUri,
    logo_uri: c.logoUri,
    tos_uri: c.tosUri,
    policy_uri: c.policyUri,
  };
}

/** GET /v1/oauth2/authorize and the consent form share these parameters. */
export const authorizeQuery = z.object({
  response_type: z.string(),
  client_id: z.string().min(1),
  redirect_uri: z.string().min(1),
  scope: z.string().default(""),
  state: z.string().max(2048).optional(),
  nonce: z.string().max(2048).optional(),
  code_challenge: z.string().min(43).max(128).optional(),
  code_challenge_method: z.string().optional(),
  sub_type: z.enum(SUB_TYPES).optional(),
});
export type AuthorizeQuery = z.output<typeof authorizeQuery>;

export const consentBody = authorizeQuery.extend({
  action: z.enum(["allow", "deny"]),
  organization_id: z.uuid().optional(),
});
export type ConsentBody = z.output<typeof consentBody>;

/** Client credentials from the form (client_secret_post) or Authorization: Basic. */
export interface ClientCredentials {
  clientId: string | undefined;
  clientSecret: string | undefined;
  basic: boolean;
}

export const tokenRequest = z.object({
  grant_type: z.string(),
  code: z.string().optional(),
  redirect_uri: z.string().optional(),
  code_verifier: z.string().optional(),
  refresh_token: z.string().optional(),
  scope: z.string().optional(),
});
export type TokenRequest = z.output<typeof tokenRequest>;

export const tokenLookup = z.object({
  token: z.string(),
  token_type_hint: z.enum(["access_token", "refresh_token"]).nullish(),
});
export type TokenLookup = z.output<typeof tokenLookup>;
