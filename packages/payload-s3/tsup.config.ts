import { packageBuild } from '../../scripts/build/tsup-package';

export default packageBuild({ index: 'src/index.ts' });
