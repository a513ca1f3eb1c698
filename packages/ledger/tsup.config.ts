import { packageBuild } from '../../scripts/build/tsup-package';

export default packageBuild(
  {
    index: 'src/index.ts',
    'sqlite/index': 'src/sqlite/index.ts',
    'postgres/index': 'src/postgres/index.ts',
    'testing/index': 'src/testing/index.ts',
  },
  { external: ['vitest'] },
);
