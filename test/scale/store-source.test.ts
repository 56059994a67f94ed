// The inspector over a PostgreSQL store: every session of a distributed job, read-only, refreshed as
// workers (here another agent system on the same store) write.
import { describe, expect, it } from 'vitest';
import type { InspectorMessage } from '../../src/inspector/protocol.ts';
import { serveInspector } from '../../src/inspector/server.ts';
import { StoreSource } from '../../src/inspector/store-source.ts';
import { pgStore } from '../../src/postgres/pg-store.ts';
import { createAgentSystem } from '../../src/runtime/create-agent-system.ts';
import { hasServers, noServers, useServers } from '../support/servers.ts';
import { taskModel, taskPrompt, workTool } from '../support/task-model.ts';

describe.skipIf(!hasServers)(
  `the inspector over a PostgreSQL store${hasServers ? '' : ` — skipped: ${noServers}`}`,
  () => {
    const servers = useServers({ redis: false });

    it('shows every session of the store read-only, and sends a fresh snapshot when a worker writes more', async () => {
      const store = pgStore(await servers.postgres.createDatabase('inspect'), { migrate: true });
      const worker = createAgentSystem({ model: taskModel(1), tools: [workTool(1)], store });
      for (const id of ['a', 'b']) {
        const agent = await worker.createAgent({ id });
        await agent.run(taskPrompt(id, 1));
        await agent.dispose();
      }
      const source = await StoreSource.open(store, { intervalMs: 60_000 });
      const server = await serveInspector(source);
      try {
        expect(
          source.agents().agents.map((agent) => [agent.id, agent.state, agent.live, agent.logLength]),
        ).toEqual([
          ['a', 'disposed', false, 17],
          ['b', 'disposed', false, 17],
        ]);
        // Read-only: the page cannot answer approvals for agents that live in other processes.
        await expect(serveInspector(source, { decisions: true })).rejects.toThrow(
          /needs a live agent system/,
        );
        const body = (await (await fetch(new URL('/api/agents', server.url))).json()) as {
          agents: { id: string }[];
        };
        expect(body.agents.map((agent) => agent.id)).toEqual(['a', 'b']);

        const messages: InspectorMessage[] = [];
        source.subscribe((message) => messages.push(message));
        await source.refresh();
        expect(messages).toEqual([]);
        const agent = await worker.resumeAgent('b');
        await agent.run(taskPrompt('b', 1));
        await agent.dispose();
        await source.refresh();
        expect(
          messages.map(
            (message) => message.kind === 'snapshot' && message.agents.map((view) => view.logLength),
          ),
          // 17 + session.resumed + the second turn's 9 events.
        ).toEqual([[17, 27]]);
        expect(source.log('b')?.length).toBe(27);
      } finally {
        await server.close();
        await worker.dispose();
        await store.close();
      }
    });
  },
);
