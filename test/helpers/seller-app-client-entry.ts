// Browser entry for tests of till's better-auth client plugin: bundled by Vite into a classic
// script that a seller app page loads, exposing a ready better-auth client on window.authClient.
import { createAuthClient } from "better-auth/client";
import { tillClient } from "../../integrations/better-auth/client.ts";

const authClient = createAuthClient({ baseURL: window.location.origin, plugins: [tillClient()] });
(window as unknown as { authClient: typeof authClient }).authClient = authClient;
