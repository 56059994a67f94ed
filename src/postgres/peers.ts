// `pg` is an optional peer dependency, loaded here when `agentchart/postgres` is imported: without it the
// import is one `ConfigError` naming what to install (see loadPeerPackages), not Node's bare "Cannot find
// package". The other files of this folder import its types only.
import type PG from 'pg';
import { loadPeerPackages } from '../providers/peer-package.ts';

const loaded = await loadPeerPackages({ pg: () => import('pg') });

/** The `pg` module (its CommonJS export). */
export const pg: typeof PG = loaded.pg.default;
