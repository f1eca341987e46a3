// The signed-in frame: a sidebar with the organization switcher and the sections, a top bar with
// the theme toggle and the account, and the page.
import { type ReactNode, useState } from "react";
import { authClient, useServerInfo, type Org } from "./auth.ts";
import { navigate, useLocation } from "./router.ts";
import { useTheme } from "./theme.ts";
import { Link } from "./ui.tsx";

const SECTIONS: { title: string; items: [string, string][] }[] = [
  { title: "", items: [["/", "Overview"]] },
  {
    title: "Catalog",
    items: [
      ["/products", "Products"],
      ["/benefits", "Benefits"],
      ["/discounts", "Discounts"],
      ["/meters", "Meters"],
    ],
  },
  {
    title: "Sales",
    items: [
      ["/checkouts", "Checkouts"],
      ["/orders", "Orders"],
      ["/subscriptions", "Subscriptions"],
      ["/refunds", "Refunds"],
      ["/license-keys", "License keys"],
      ["/customers", "Customers"],
    ],
  },
  {
    title: "Developers",
    items: [
      ["/webhooks", "Webhooks"],
      ["/tokens", "Access tokens"],
    ],
  },
  {
    title: "Organization",
    items: [
      ["/settings/members", "Members"],
      ["/settings/teams", "Teams & roles"],
    ],
  },
];

function active(path: string, href: string): boolean {
  return href === "/" ? path === "/" : path === href || path.startsWith(`${href}/`);
}

function OrgSwitcher({ org, orgs }: { org: Org; orgs: Org[] }) {
  const change = async (value: string) => {
    if (value === "__new") return navigate("/organizations/new");
    await authClient.organization.setActive({ organizationId: value });
    navigate("/");
  };
  return (
    <label className="org-switcher">
      <span className="sr-only">Organization</span>
      <select value={org.id} onChange={(e) => void change(e.target.value)}>
        {orgs.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
        <option value="__new">+ New organization</option>
      </select>
    </label>
  );
}

export function Layout({
  org,
  orgs,
  email,
  children,
}: {
  org: Org;
  orgs: Org[];
  email: string;
  children: ReactNode;
}) {
  const { path } = useLocation();
  const [theme, cycleTheme] = useTheme();
  // On a phone the sections fold behind a Menu button; choosing one folds them again.
  // The menu is open for the page it was opened on, so moving to another page closes it.
  const [menuOpenOn, setMenuOpenOn] = useState<string | null>(null);
  const menuOpen = menuOpenOn === path;
  const info = useServerInfo();
  const sections = info?.sandbox
    ? SECTIONS.map((s) =>
        s.title === "Developers"
          ? {
              ...s,
              items: [
                ...s.items,
                ["/emails", "Email outbox"] as [string, string],
                ["/clock", "Sandbox clock"] as [string, string],
              ],
            }
          : s,
      )
    : SECTIONS;
  const signOut = async () => {
    await authClient.signOut();
    navigate("/sign-in", { replace: true });
  };
  return (
    <div className="frame">
      <aside className="sidebar" data-open={menuOpen}>
        <div className="brand">
          <span className="logo" aria-hidden="true">
            t
          </span>{" "}
          till
          {info?.sandbox ? <span className="badge warn">sandbox</span> : null}
          <button
            type="button"
            className="ghost small menu-toggle"
            aria-expanded={menuOpen}
            aria-controls="sidebar-menu"
            onClick={() => setMenuOpenOn(menuOpen ? null : path)}
          >
            {menuOpen ? "Close menu" : "Menu"}
          </button>
        </div>
        <div className="sidebar-menu" id="sidebar-menu">
          <OrgSwitcher org={org} orgs={orgs} />
          <nav aria-label="Sections">
            {sections.map((s) => (
              <div key={s.title} className="nav-group">
                {s.title ? <h2>{s.title}</h2> : null}
                {s.items.map(([href, label]) => (
                  <Link
                    key={href}
                    to={href}
                    className="nav-link"
                    aria-current={active(path, href) ? "page" : undefined}
                  >
                    {label}
                  </Link>
                ))}
              </div>
            ))}
          </nav>
        </div>
      </aside>
      <div className="main">
        <header className="topbar">
          <button
            type="button"
            className="ghost small"
            onClick={cycleTheme}
            aria-label={`Theme: ${theme}. Change theme`}
          >
            {theme === "dark" ? "☾ Dark" : theme === "light" ? "☀ Light" : "◐ System"}
          </button>
          <span className="muted small-text account-email">{email}</span>
          <button type="button" className="ghost small" onClick={() => void signOut()}>
            Sign out
          </button>
        </header>
        <main className="content">{children}</main>
      </div>
    </div>
  );
}
