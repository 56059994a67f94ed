import { memoryStore } from '../../src/session/memory-store.ts';
import { runStoreContract } from '../support/store-contract.ts';

runStoreContract('memoryStore', () => memoryStore());
