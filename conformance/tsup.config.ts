import { packageBuild } from '../scripts/build/tsup-package';

export default packageBuild(['src/index.ts', 'src/vitest.ts'], { external: ['vitest'] });
