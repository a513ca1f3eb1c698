import { packageBuild } from '../../scripts/build/tsup-package';

// `shims`: the CommonJS build gets `import.meta.url`, which loading the optional peer needs.
export default packageBuild(['src/index.ts'], { shims: true });
