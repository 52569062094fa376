import { type DimensionId, type ListKind } from '@adplane/shared';
import { type ListName } from '../../api/lists.js';

/** The observed-inventory pages: what traffic showed, by one dimension, and the list it can go to. */
export interface ObservedKind {
  route: string;
  title: string;
  singular: string;
  dimension: DimensionId;
  listKind: ListKind;
  listName: ListName;
  listLabel: string;
}

export const OBSERVED: Record<'publishers' | 'sites' | 'applications' | 'tcreatives', ObservedKind> = {
  publishers: {
    route: '/publishers',
    title: 'Publishers',
    singular: 'Publisher',
    dimension: 'publisher_id',
    listKind: 'publists',
    listName: 'pubLists',
    listLabel: 'publisher list',
  },
  sites: {
    route: '/sites',
    title: 'Sites',
    singular: 'Site',
    dimension: 'domain',
    listKind: 'publists',
    listName: 'pubLists',
    listLabel: 'publisher list',
  },
  applications: {
    route: '/applications',
    title: 'Applications',
    singular: 'App',
    dimension: 'app_bundle',
    listKind: 'applists',
    listName: 'appLists',
    listLabel: 'app list',
  },
  tcreatives: {
    route: '/tcreatives',
    title: 'Creatives in Traffic',
    singular: 'Creative',
    dimension: 'creative',
    listKind: 'crelists',
    listName: 'creLists',
    listLabel: 'creative list',
  },
};
