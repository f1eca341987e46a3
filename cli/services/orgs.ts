// Organizations and organization access tokens from the terminal.
import { organizationParam, type CommandContext } from "../lib/command.ts";
import { AbortError } from "../lib/errors.ts";
import { printTable } from "../lib/resource.ts";
import { readStore, saveProfile } from "../lib/store.ts";

interface Organization {
  id: string;
  slug: string;
  name: string;
  created_at: string;
}

interface AccessToken {
  id: string;
  comment: string;
  scopes: string[];
  expires_at: string | null;
  last_used_at: string | null;
  organization_id: string;
}

export async function listOrgs(ctx: CommandContext): Promise<void> {
  // --json prints the API's page ({items, pagination}), like every other list.
  const page = await ctx
    .api()
    .get<{ items: Organization[]; pagination: unknown }>("/v1/organizations/", { limit: 100 });
  const current = ctx.session.organizationId;
  await printTable(ctx, page, page.items, [
    { header: "", value: (o) => (o.id === current ? "*" : " ") },
    { header: "slug", value: (o) => o.slug },
    { header: "name", value: (o) => o.name },
    { header: "id", value: (o) => o.id },
  ]);
}

async function findOrg(ctx: CommandContext, ref: string): Promise<Organization> {
  const orgs = await ctx.api().all<Organization>("/v1/organizations/");
  const org = orgs.find((o) => o.id === ref || o.slug === ref);
  if (!org)
    throw new AbortError(`No organization "${ref}".`, {
      hint: `Yours: ${orgs.map((o) => o.slug).join(", ") || "none"}`,
    });
  return org;
}

function rememberOrg(ctx: CommandContext, org: Organization): void {
  const { session } = ctx;
  const profile = readStore(session.env.configDir).profiles[session.profileName];
  if (!profile || session.source !== "profile") {
    throw new AbortError("Switching organizations needs a logged-in profile.", {
      hint: "With TILL_TOKEN, the token decides the organization.",
    });
  }
  saveProfile(session.env.configDir, session.profileName, {
    ...profile,
    organizationId: org.id,
    organizationSlug: org.slug,
  });
}

export async function switchOrg(ctx: CommandContext, ref: string): Promise<void> {
  const org = await findOrg(ctx, ref);
  rememberOrg(ctx, org);
  ctx.out.result(org, () => `Now using ${org.name} (${org.slug}).`);
}

export async function createOrg(
  ctx: CommandContext,
  input: { name: string; slug?: string | undefined },
): Promise<void> {
  const slug =
    input.slug ??
    input.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "");
  const org = await ctx.api().post<Organization>("/v1/organizations/", { name: input.name, slug });
  const switched = ctx.session.source === "profile";
  if (switched) rememberOrg(ctx, org);
  ctx.out.result(
    org,
    () =>
      `Created ${org.name} (${org.slug}, ${org.id}).${switched ? "\nNow using it: commands without --org act in it (`till orgs switch` to change)." : ""}`,
  );
}

export async function createToken(
  ctx: CommandContext,
  flags: { scope: string[]; comment: string; expiresIn?: string; org?: string },
): Promise<void> {
  // A token works in one organization only: say which one it is made for.
  const organizationId = await organizationParam(ctx, flags.org, { announce: true });
  const res = await ctx
    .api()
    .post<{ token: string; organization_access_token: AccessToken }>(
      "/v1/organization-access-tokens/",
      {
        organization_id: organizationId,
        comment: flags.comment,
        scopes: flags.scope,
        ...(flags.expiresIn ? { expires_in: flags.expiresIn } : {}),
      },
    );
  if (!ctx.out.json)
    ctx.out.note(
      "This is the only time the token is shown. Store it as a secret (e.g. TILL_TOKEN in CI).",
    );
  ctx.out.result(res, () => res.token);
}

export async function deleteToken(ctx: CommandContext, id: string): Promise<void> {
  await ctx.api().delete(`/v1/organization-access-tokens/${encodeURIComponent(id)}`);
  ctx.out.result({ deleted: id }, () => `Deleted token ${id}.`);
}
