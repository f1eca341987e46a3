// /v1/oauth2: client registration (a signed-in user's), authorize (JSON for a consent screen) and
// consent, and the token, revoke, introspect and userinfo endpoints apps call. The last four speak
// OAuth's form bodies and error shape; /oauth2/authorize outside /v1 is the consent page itself.
import express, { type Request } from "express";
import { z } from "zod";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { authOf, type AuthResolver, type Guard } from "../../lib/auth-context.ts";
import { assertStorable } from "../../lib/safe-input.ts";
import { parseBody, parseParams, parseQuery } from "../../lib/validation.ts";
import { renderConsentPage, type ConsentPageState } from "./consent-page.ts";
import { OAuthError } from "./errors.ts";
import {
  authorizeQuery,
  clientConfiguration,
  clientConfigurationUpdate,
  consentBody,
  tokenLookup,
  tokenRequest,
} from "./schemas.ts";
import * as service from "./service.ts";
import * as tokens from "./tokens.ts";

const clientParams = z.object({ client_id: z.string().min(1).max(256) });
const form = express.urlencoded({ extended: false, limit: "64kb" });

/** An OAuth endpoint's form (JSON accepted too): bad input is invalid_request, not a 422. */
function parseForm<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  assertStorable(req.body ?? {}, ["body"]);
  const result = schema.safeParse(req.body ?? {});
  if (!result.success) {
    const field = result.error.issues[0]?.path.join(".");
    throw new OAuthError(
      "invalid_request",
      field
        ? `Missing or invalid parameter: ${field}.`
        : "The parameters must be a form (application/x-www-form-urlencoded) or a JSON object.",
    );
  }
  return result.data;
}

/** client_secret_basic (RFC 6749 §2.3.1: form-encoded, then base64) or client_secret_post. */
function clientCredentials(req: Request) {
  const header = req.headers.authorization;
  const basic = header && /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)?.[1];
  if (basic) {
    const decoded = Buffer.from(basic, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw new OAuthError("invalid_client", "Malformed Basic credentials.");
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon)),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  }
  const body = (req.body ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  return { clientId: str(body.client_id), clientSecret: str(body.client_secret) };
}

export function oauth2Router(deps: service.OAuth2Deps, guard: Guard): Router {
  const r = apiRouter();
  const signedIn = guard();
  r.post("/oauth2/register", signedIn, async (req, res) => {
    const body = parseBody(clientConfiguration, req);
    res.json(await service.registerClient(deps, authOf(req), body));
  });
  r.get("/oauth2/register/:client_id", signedIn, async (req, res) => {
    const { client_id } = parseParams(clientParams, req);
    res.json(await service.getClient(deps, authOf(req), client_id));
  });
  r.put("/oauth2/register/:client_id", signedIn, async (req, res) => {
    const { client_id } = parseParams(clientParams, req);
    const body = parseBody(clientConfigurationUpdate, req);
    res.json(await service.updateClient(deps, authOf(req), client_id, body));
  });
  r.delete("/oauth2/register/:client_id", signedIn, async (req, res) => {
    const { client_id } = parseParams(clientParams, req);
    await service.deleteClient(deps, authOf(req), client_id);
    res.status(204).end();
  });
  r.get("/oauth2/authorize", signedIn, async (req, res) => {
    const q = parseQuery(authorizeQuery, req);
    res.json((await service.describeAuthorization(deps, authOf(req), q)).answer);
  });
  r.post("/oauth2/consent", form, signedIn, async (req, res) => {
    assertStorable(req.body ?? {}, ["body"]);
    const body = parseBody(consentBody, req);
    res.redirect(303, await service.consent(deps, authOf(req), body));
  });
  r.post("/oauth2/token", form, async (req, res) => {
    const body = parseForm(tokenRequest, req);
    res.set({ "cache-control": "no-store", pragma: "no-cache" });
    res.json(await tokens.exchangeToken(deps, clientCredentials(req), body));
  });
  r.post("/oauth2/revoke", form, async (req, res) => {
    const body = parseForm(tokenLookup, req);
    res.json(await tokens.revoke(deps, clientCredentials(req), body));
  });
  r.post("/oauth2/introspect", form, async (req, res) => {
    const body = parseForm(tokenLookup, req);
    res.set("cache-control", "no-store");
    res.json(await tokens.introspect(deps, clientCredentials(req), body));
  });
  r.get("/oauth2/userinfo", async (req, res) => {
    res.json(await tokens.userInfo(deps, req.bearer));
  });
  return r;
}

/** GET /oauth2/authorize: the page a browser lands on; errors about the app itself stay here. */
export function oauth2PageRouter(deps: service.OAuth2Deps, resolve: AuthResolver): Router {
  const r = apiRouter();
  // RFC 8414 metadata, so apps (and MCP clients) find the endpoints from the base URL alone.
  r.get("/.well-known/oauth-authorization-server", (_req, res) => {
    res.json(service.authorizationServerMetadata(deps.baseUrl));
  });
  r.get("/oauth2/authorize", async (req, res) => {
    const nonce = res.locals.cspNonce ?? "";
    const send = (state: Omit<ConsentPageState, "nonce">, status = 200) =>
      res
        .status(status)
        // same-origin, not no-referrer: with no-referrer the consent form posts `Origin: null`,
        // which the cookie's origin check refuses; the app still gets no referrer.
        .set({ "cache-control": "no-store", "referrer-policy": "same-origin" })
        .type("html")
        .send(renderConsentPage({ nonce, ...state }));
    const parsed = authorizeQuery.safeParse(req.query);
    if (!parsed.success)
      return void send({ consent: null, error: "The authorization request is incomplete." }, 400);
    const q = parsed.data;
    try {
      await service.checkAuthorization(deps, q);
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      if (!err.redirectable) return void send({ consent: null, error: err.message }, 400);
      const back = new URL(q.redirect_uri);
      back.searchParams.set("error", err.code);
      back.searchParams.set("error_description", err.message);
      if (q.state !== undefined) back.searchParams.set("state", q.state);
      return void res.redirect(302, back.toString());
    }
    const ctx = await resolve(req);
    if (ctx?.kind !== "user" || ctx.oauthClientId) return void send({ consent: null, error: null });
    const described = await service.describeAuthorization(deps, ctx, q);
    const params = Object.fromEntries(
      Object.entries(q).filter((e): e is [string, string] => typeof e[1] === "string"),
    );
    send({
      error: null,
      consent: {
        email: described.userEmail,
        clientName: described.answer.client.client_name,
        scopes: described.answer.scopes,
        subType: described.answer.sub_type,
        organizations: described.organizationNames,
        params,
      },
    });
  });
  return r;
}
