import { describeSqsConformance } from './support/conformance-run';

describeSqsConformance('sqs standard', false);
