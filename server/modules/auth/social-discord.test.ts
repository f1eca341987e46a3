// Discord sign-in end to end against a local server speaking Discord's OAuth2 protocol (authorize,
// token, /users/@me). With only AUTH_DISCORD_CLIENT_ID/_SECRET set, better-auth's built-in discord
// provider runs unmodified — its hard-coded discord.com URLs and its own profile mapping — because
// this process's requests to discord.com are routed to the local server. With the endpoints
// overridden (AUTH_DISCORD_*_URL, the generic OAuth path) the same profiles map to the same user.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browser, uniqueEmail } from "../../../test/helpers/browser.ts";
import { routeHosts } from "../../../test/helpers/host-routing.ts";
import {
  oauthFlow,
  startOAuthProvider,
  type FakeProvider,
  type Profile,
} from "../../../test/helpers/oauth-provider.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const CREDS = { clientId: "discord-client", clientSecret: "discord-secret" };
const PATHS = {
  authorize: "/api/oauth2/authorize",
  token: "/api/oauth2/token",
  userinfo: "/api/users/@me",
};

let discord: FakeProvider;
let unroute: () => void;
let builtIn: TestServer;
let overridden: TestServer;
beforeAll(async () => {
  discord = await startOAuthProvider({ ...CREDS, paths: PATHS, scope: "identify email" });
  unroute = routeHosts({ "discord.com": discord.url });
  const creds = {
    AUTH_DISCORD_CLIENT_ID: CREDS.clientId,
    AUTH_DISCORD_CLIENT_SECRET: CREDS.clientSecret,
  };
  [builtIn, overridden] = await Promise.all([
    startTestServer({ env: creds }),
    startTestServer({
      env: {
        ...creds,
        AUTH_DISCORD_AUTHORIZATION_URL: `${discord.url}${PATHS.authorize}`,
        AUTH_DISCORD_TOKEN_URL: `${discord.url}${PATHS.token}`,
        AUTH_DISCORD_USERINFO_URL: `${discord.url}${PATHS.userinfo}`,
      },
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([builtIn?.stop(), overridden?.stop()]);
  unroute?.();
  await discord?.stop();
});

// Discord's user object as /users/@me returns it (snowflake ids, the avatar hash, `verified`).
function discordUser(fields: Partial<Profile>): Profile {
  return {
    id: "80351110224678912",
    username: "nelly",
    global_name: "Nelly",
    discriminator: "0",
    avatar: "8342729096ea3675442027381ff50dfe",
    email: uniqueEmail("discord"),
    verified: true,
    ...fields,
  };
}

async function signInAs(server: TestServer, profile: Profile) {
  const b = browser(server.url);
  discord.nextProfile = profile;
  const { start, callback } = await oauthFlow(b, "/api/auth/sign-in/social", {
    provider: "discord",
  });
  expect(callback?.status).toBe(302);
  expect(callback!.headers.get("location")).toBe("/dashboard");
  return { b, start, user: (await b.client.getSession()).data!.user };
}

describe("Discord sign-in with the built-in provider", () => {
  it("authorizes at discord.com with Discord's parameters, exchanges the code, reads /users/@me and signs the user in", async () => {
    const profile = discordUser({ id: "175928847299117063" });
    const { b, start, user } = await signInAs(builtIn, profile);
    const authorize = new URL(start.body.url);
    expect(authorize.origin + authorize.pathname).toBe("https://discord.com/api/oauth2/authorize");
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: CREDS.clientId,
      response_type: "code",
      scope: "identify email",
      prompt: "none",
      redirect_uri: `${builtIn.url}/api/auth/callback/discord`,
    });
    const token = discord.log.filter((l) => l.path === PATHS.token).at(-1)!;
    expect(token.params).toMatchObject({
      grant_type: "authorization_code",
      redirect_uri: `${builtIn.url}/api/auth/callback/discord`,
    });
    expect(
      discord.log.filter((l) => l.path === PATHS.userinfo).at(-1)!.params.authorization,
    ).toMatch(/^Bearer at_/);

    expect(user).toMatchObject({
      email: profile.email,
      name: "Nelly",
      image:
        "https://cdn.discordapp.com/avatars/175928847299117063/8342729096ea3675442027381ff50dfe.png",
      emailVerified: true,
    });
    const accounts = (await b.client.listAccounts()).data!;
    expect(accounts.map((a) => [a.providerId, a.accountId])).toEqual([
      ["discord", "175928847299117063"],
    ]);
  });
});

describe("Discord's profile mapping, built-in and with overridden endpoints alike", () => {
  // One Discord account per case (a returning account keeps the user it made); the servers have separate databases.
  const cases = [
    {
      name: "global_name and a static avatar",
      fields: { id: "80351110224678912" },
      expected: {
        name: "Nelly",
        image:
          "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png",
        emailVerified: true,
      },
    },
    {
      name: "an animated avatar",
      fields: { id: "80351110224678913", avatar: "a_1269e74af4df7417b13759eae50c83dc" },
      expected: {
        name: "Nelly",
        image:
          "https://cdn.discordapp.com/avatars/80351110224678913/a_1269e74af4df7417b13759eae50c83dc.gif",
      },
    },
    {
      // No display name: the username. No avatar: Discord's default one for the id, (id >> 22) % 6.
      name: "no global_name, no avatar, unverified email",
      fields: { id: "80351110224678914", global_name: null, avatar: null, verified: false },
      expected: {
        name: "nelly",
        image: "https://cdn.discordapp.com/embed/avatars/5.png",
        emailVerified: false,
      },
    },
    {
      name: "a legacy discriminator and no avatar: discriminator % 5",
      fields: { id: "80351110224678915", avatar: null, discriminator: "1337" },
      expected: { image: "https://cdn.discordapp.com/embed/avatars/2.png" },
    },
  ];
  for (const [label, server] of [
    ["built-in", () => builtIn],
    ["overridden endpoints", () => overridden],
  ] as const) {
    it.each(cases)(`${label}: $name`, async ({ fields, expected }) => {
      const profile = discordUser(fields);
      const { user } = await signInAs(server(), profile);
      expect(user).toMatchObject({ email: profile.email, ...expected });
    });
  }
});
