import { packageBuild } from '../../scripts/build/tsup-package';

export default packageBuild(['src/index.ts']);
