// Teams inside the organization, and custom roles (better-auth's dynamic access control).
import { useEffect, useState } from "react";
import { authClient, unwrap, useOrg } from "../auth.ts";
import { Badge, Empty, ErrorNote, Loading, PageHeader, submit, useAction, when } from "../ui.tsx";
import { useFullOrganization } from "./organization.tsx";

// Resources and actions of better-auth's default organization access control.
const PERMISSIONS: Record<string, string[]> = {
  organization: ["update", "delete"],
  member: ["create", "update", "delete"],
  invitation: ["create", "cancel"],
  team: ["create", "update", "delete"],
  ac: ["create", "read", "update", "delete"],
};

interface Role {
  id: string;
  role: string;
  permission: Record<string, string[]>;
  createdAt: string | Date;
}

function Roles() {
  const org = useOrg();
  const action = useAction();
  const [roles, setRoles] = useState<Role[] | null>(null);
  const [tick, setTick] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new tick fetches again; action is new each render
  useEffect(() => {
    unwrap(authClient.organization.listRoles({ query: { organizationId: org.id } })).then(
      (r) => setRoles((r ?? []) as Role[]),
      (e: Error) => action.setError(e.message),
    );
  }, [org.id, tick]);
  const create = submit((data, form) =>
    action.run(async () => {
      const permission: Record<string, string[]> = {};
      for (const key of data.getAll("perm").map(String)) {
        const [resource, act] = key.split(":") as [string, string];
        permission[resource] = [...(permission[resource] ?? []), act];
      }
      await unwrap(
        authClient.organization.createRole({
          role: String(data.get("role")),
          permission,
          organizationId: org.id,
        }),
      );
      form.reset();
      setTick((n) => n + 1);
    }),
  );
  return (
    <section className="stack">
      <h2>Custom roles</h2>
      <p className="muted">
        Built in: owner, admin and member. Add roles with exactly the permissions a teammate needs.
      </p>
      {roles === null ? <Loading what="Loading roles" /> : null}
      {roles?.length === 0 ? <p className="muted">No custom roles yet.</p> : null}
      <ul className="list card">
        {roles?.map((r) => (
          <li key={r.id}>
            <Badge>{r.role}</Badge>
            <span className="muted small-text">
              {Object.entries(r.permission)
                .map(([res, acts]) => `${res}: ${acts.join(", ")}`)
                .join(" · ")}
            </span>
            <button
              type="button"
              className="ghost small"
              onClick={() =>
                void action.run(async () => {
                  await unwrap(
                    authClient.organization.deleteRole({
                      roleName: r.role,
                      organizationId: org.id,
                    }),
                  );
                  setTick((n) => n + 1);
                })
              }
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
      <form className="card stack" onSubmit={create} aria-label="New role">
        <label className="field">
          <span>Role name</span>
          <input name="role" required pattern="[a-z][a-z0-9_-]*" placeholder="support" />
        </label>
        <fieldset className="events">
          <legend>Permissions</legend>
          {Object.entries(PERMISSIONS).flatMap(([res, acts]) =>
            acts.map((a) => (
              <label key={`${res}:${a}`} className="check">
                <input type="checkbox" name="perm" value={`${res}:${a}`} /> {res}: {a}
              </label>
            )),
          )}
        </fieldset>
        <button type="submit" className="secondary" disabled={action.busy}>
          Create role
        </button>
      </form>
      <ErrorNote error={action.error} />
    </section>
  );
}

export function TeamsPage() {
  const current = useOrg();
  const { org, error, reload } = useFullOrganization(current.id);
  const action = useAction();
  const create = submit((data, form) =>
    action.run(async () => {
      await unwrap(
        authClient.organization.createTeam({
          name: String(data.get("name")),
          organizationId: current.id,
        }),
      );
      form.reset();
      reload();
    }),
  );
  return (
    <>
      <PageHeader title="Teams & roles" />
      <section className="stack">
        <h2>Teams</h2>
        {error ? <ErrorNote error={error} /> : null}
        {!org && !error ? <Loading what="Loading teams" /> : null}
        {org && (org.teams ?? []).length === 0 ? (
          <Empty title="No teams yet">
            <p className="muted">Group members into teams, e.g. Support or Engineering.</p>
          </Empty>
        ) : null}
        <ul className="list card">
          {(org?.teams ?? []).map((t) => (
            <li key={t.id}>
              <strong>{t.name}</strong>{" "}
              <span className="muted">created {when(new Date(t.createdAt).toISOString())}</span>
              <button
                type="button"
                className="ghost small"
                onClick={() =>
                  void action.run(async () => {
                    await unwrap(
                      authClient.organization.removeTeam({
                        teamId: t.id,
                        organizationId: current.id,
                      }),
                    );
                    return reload();
                  })
                }
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
        <form className="card row" onSubmit={create} aria-label="Create a team">
          <label className="field grow">
            <span>New team</span>
            <input name="name" required placeholder="Support" />
          </label>
          <button type="submit" className="secondary" disabled={action.busy}>
            Create team
          </button>
        </form>
        <ErrorNote error={action.error} />
      </section>
      <Roles />
    </>
  );
}
