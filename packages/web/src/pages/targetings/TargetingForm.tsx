import { Alert, Checkbox, Col, Form, Row, Select, Tabs, Typography } from 'antd';
import { type ReactNode } from 'react';
import {
  BROWSER_FAMILIES,
  COUNTRIES,
  DEVICE_TYPES,
  OPERATING_SYSTEMS,
  PLAYER_SIZES,
  REGION_BY_ID,
  SMART_TV_FAMILIES,
  US_STATES,
  countryName,
  iabCategoryLabel,
  isCityCode,
  isKeyValue,
  isMetroCode,
  isPostalCode,
  type ReferenceItem,
  type ResourceKind,
  unknownCodes,
} from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { HelpLabel, RefSelect, useFieldHelp } from '../../resources/fields.js';
import { CheckTree } from './CheckTree.js';
import { DayPartingField } from './DayPartingField.js';
import { dayPartingProblem, type DayPartingValue } from './dayParting.js';
import { FilterField } from './FilterField.js';
import { type RulesLike, summarizeTargeting, targetingParts } from './summary.js';
import {
  IAB_TREE,
  REGION_TREE,
  iabCheckedKeys,
  iabLeaves,
  regionCheckedKeys,
  toggleIab,
  toggleRegion,
} from './trees.js';
import { NameStatusRow } from '../../resources/formParts.js';

const countryOptions = COUNTRIES.map((c) => ({ value: c.id, label: `${c.name} (${c.id})` }));
const stateOptions = US_STATES.map((s) => ({ value: s.id, label: `${s.name} (${s.id})` }));
const toOptions = (items: readonly ReferenceItem[]) => items.map((i) => ({ value: i.id, label: i.name }));

const iabChip = (id: string) => {
  const leaves = iabLeaves([id]).size;
  return { value: id, label: leaves > 1 ? `${iabCategoryLabel(id)} (all ${leaves})` : iabCategoryLabel(id) };
};
const regionChip = (id: string) => ({ value: id, label: REGION_BY_ID.get(id)?.name ?? countryName(id) });

/** A checkbox group laid out in columns, so that eleven browser families do not wrap raggedly. */
function CheckGrid(props: {
  options: { value: string; label: string }[];
  value: string[];
  onChange: (v: string[]) => void;
  disabled?: boolean;
  testId: string;
}) {
  return (
    <Checkbox.Group
      value={props.value}
      onChange={(v) => props.onChange(v as string[])}
      disabled={props.disabled}
      style={{ width: '100%' }}
      data-testid={props.testId}
    >
      <Row gutter={[8, 4]} style={{ width: '100%' }}>
        {props.options.map((o) => (
          <Col span={6} key={o.value}>
            <Checkbox value={o.value}>{o.label}</Checkbox>
          </Col>
        ))}
      </Row>
    </Checkbox.Group>
  );
}

/** Help under "Blocked ad categories": it refuses ads, where the content categories refuse requests. */
export const BLOCKED_AD_CATEGORIES_HELP =
  "Brand safety: ads in these categories never serve where this targeting applies (our creatives, demand tags' ads, programmatic bids), and programmatic demand is told so (OpenRTB bcat). It refuses ads, not requests, unlike the content categories above. A top-level category blocks all its sub-categories. Nothing checked: no ad is blocked for its category.";

/** The blocked ad categories (a plain list of IAB codes, no include/exclude) on the IAB tree. */
/** The IAB category tree: a top-level category checked stands for its sub-categories (trees.ts). */
function IabTree({
  values,
  set,
  testId,
  searchPlaceholder,
  height,
  disabled,
}: {
  values: string[];
  set: (v: string[]) => void;
  testId: string;
  searchPlaceholder: string;
  height: number;
  disabled: boolean | undefined;
}) {
  return (
    <CheckTree
      testId={testId}
      treeData={IAB_TREE}
      checkedKeys={iabCheckedKeys(values)}
      onToggle={(key, checked) => set(toggleIab(values, key, checked))}
      onClear={() => set([])}
      chips={values.map(iabChip)}
      onRemoveChip={(v) => set(toggleIab(values, v, false))}
      searchPlaceholder={searchPlaceholder}
      disabled={disabled}
      height={height}
    />
  );
}

function BlockedCategoriesField({
  value,
  onChange,
  disabled,
}: {
  value?: string[];
  onChange?: (v: string[]) => void;
  disabled?: boolean;
}) {
  return (
    <IabTree
      values={value ?? []}
      set={(v) => onChange?.(v)}
      testId="targeting-blocked-ad-tree"
      searchPlaceholder="Find a category to block: gambling, IAB7..."
      height={280}
      disabled={disabled}
    />
  );
}

/** Holds a value the form does not show (publisher and creative lists outside V2V), so that saving keeps it. */
function Kept(_props: { value?: unknown }) {
  return null;
}

/** Free entry of codes a list cannot hold (cities, metros, postal codes, key-values): typed, pasted or separated by commas. */
function CodesInput(props: {
  values: string[];
  onChange: (v: string[]) => void;
  placeholder: string;
  disabled?: boolean;
  testId: string;
}) {
  return (
    <Select
      mode="tags"
      notFoundContent={null}
      tokenSeparators={[',', ';', '\n']}
      value={props.values}
      onChange={(v: string[]) => props.onChange(v.map((x) => x.trim()).filter(Boolean))}
      placeholder={props.placeholder}
      disabled={props.disabled}
      style={{ width: '100%' }}
      data-testid={props.testId}
    />
  );
}

/** What each free-entry filter takes, checked as the server checks it (packages/shared entities/targeting.ts). */
const CODE_FIELDS = {
  cities: {
    text: 'Cities',
    any: 'any city',
    placeholder: 'Country and city, the state optional: US-CA:Mountain View, GB:London',
    valid: isCityCode,
    what: 'city (CC:City or CC-RR:City)',
    extra:
      'A city as MaxMind names it in English, after its country code (and region code): US-CA:Mountain View. Matched without regard to case. Cities, metros and postal codes come from the MaxMind City database the ad server is set up with; without one, no request has them, and an include refuses it.',
  },
  metros: {
    text: 'Metros (DMA)',
    any: 'any metro',
    placeholder: 'Nielsen DMA codes: 807, 501',
    valid: isMetroCode,
    what: 'metro code (a Nielsen DMA code, 500-899)',
    extra:
      'US designated market areas by their Nielsen code: 501 New York, 803 Los Angeles, 807 San Francisco-Oakland-San Jose.',
  },
  postalCodes: {
    text: 'Postal codes',
    any: 'any postal code',
    placeholder: 'Country and code: US:94043, CA:M5V, GB:E1',
    valid: isPostalCode,
    what: 'postal code (CC:code)',
    extra: 'After the country code; MaxMind gives the first part of longer codes (CA:M5V, GB:E1).',
  },
  keyValues: {
    text: 'Key-values',
    any: 'any key-values',
    placeholder: 'key=value: genre=sports, tier=gold',
    valid: isKeyValue,
    what: 'key=value pair',
    extra:
      "The request's custom parameters: a VAST tag's kv or cust_params (genre%3Dsports%26tier%3Dgold) or its own parameters (&genre=sports), a bid request's first-party data (imp.ext.data, site.ext.data, app.ext.data; Prebid's ortb2Imp.ext.data). Include: for each key named, the request must carry one of its values; exclude: it must carry none of the pairs. Matched without regard to case.",
  },
} as const;
type CodeFieldKey = keyof typeof CODE_FIELDS;

type RuleKey = keyof RulesLike;
const TAB_RULES: Record<string, RuleKey[]> = {
  geo: ['countries', 'regions', 'usStates', 'cities', 'metros', 'postalCodes'],
  devices: ['devices', 'os', 'browsers', 'tvFamilies'],
  content: ['iabCategories', 'blockedAdCategories'],
  keyvalues: ['keyValues'],
  lists: ['appLists', 'ipLists', 'pubLists', 'creLists', 'playerSizes'],
  daypart: ['dayParting'],
};

function tabLabel(label: string, rules: RulesLike | undefined, key: string): ReactNode {
  const count = rules
    ? targetingParts(Object.fromEntries(TAB_RULES[key].map((k) => [k, rules[k]])) as RulesLike).length
    : 0;
  return (
    <span data-testid={`targeting-tab-${key}`}>
      {label}
      {count > 0 && <span style={{ marginInlineStart: 6, color: '#1677ff', fontWeight: 600 }}>({count})</span>}
    </span>
  );
}

/**
 * The drawer of a targeting profile: name and status, then one tab per kind of rule. Every filter
 * has an Include/Exclude switch; a filter left empty matches any traffic.
 */
export function TargetingForm({ form, readOnly }: ResourceFormProps) {
  const user = useUser();
  const help = useFieldHelp();
  const rules = Form.useWatch('rules', form) as RulesLike | undefined;
  // Publisher and creative lists exist on the V2V database only (the Targeting menu has them there alone).
  const v2v = user.config.database === 'V2V';
  const label = (text: string, key: string) => <HelpLabel label={text} help={help(`targetings.${key}`)} />;

  const codeField = (key: CodeFieldKey) => {
    const f = CODE_FIELDS[key];
    return (
      <Form.Item
        name={['rules', key]}
        label={label(f.text, `rules.${key}`)}
        extra={f.extra}
        rules={[
          {
            validator: async (_r, v: { values?: string[] } | undefined) => {
              const problem = unknownCodes(v?.values ?? [], f.valid, f.what);
              if (problem) throw new Error(problem);
            },
          },
        ]}
      >
        <FilterField<'values', string>
          itemsKey="values"
          anyText={f.any}
          testId={`targeting-${key}`}
          disabled={readOnly}
        >
          {(values, set) => (
            <CodesInput
              values={values}
              onChange={set}
              placeholder={f.placeholder}
              disabled={readOnly}
              testId={`targeting-${key}-input`}
            />
          )}
        </FilterField>
      </Form.Item>
    );
  };

  const listField = (
    kind: ResourceKind,
    key: 'appLists' | 'pubLists' | 'creLists' | 'ipLists',
    text: string,
    any: string,
  ) => (
    <Form.Item name={['rules', key]} label={label(text, `rules.${key}`)}>
      <FilterField<'ids', number> itemsKey="ids" anyText={any} testId={`targeting-${key}`} disabled={readOnly}>
        {(ids, set) => (
          <RefSelect
            kind={kind}
            multiple
            value={ids}
            onChange={(v) => set((v as number[]) ?? [])}
            disabled={readOnly}
            placeholder="Any"
          />
        )}
      </FilterField>
    </Form.Item>
  );

  const checkFilter = (
    key: 'devices' | 'os' | 'browsers' | 'tvFamilies',
    text: string,
    items: readonly ReferenceItem[],
    any: string,
  ) => (
    <Form.Item name={['rules', key]} label={label(text, `rules.${key}`)}>
      <FilterField<'values', string> itemsKey="values" anyText={any} testId={`targeting-${key}`} disabled={readOnly}>
        {(values, set) => (
          <CheckGrid
            options={toOptions(items)}
            value={values}
            onChange={set}
            disabled={readOnly}
            testId={`targeting-${key}-options`}
          />
        )}
      </FilterField>
    </Form.Item>
  );

  const tabs = [
    {
      key: 'geo',
      label: tabLabel('Geography', rules, 'geo'),
      forceRender: true,
      children: (
        <>
          <Form.Item name={['rules', 'countries']} label={label('Countries', 'rules.countries')}>
            <FilterField<'values', string>
              itemsKey="values"
              anyText="any country"
              testId="targeting-countries"
              disabled={readOnly}
            >
              {(values, set) => (
                <Select
                  mode="multiple"
                  allowClear
                  showSearch={{ optionFilterProp: 'label' }}
                  placeholder="Any country: type a name or a code"
                  options={countryOptions}
                  value={values}
                  onChange={set}
                  disabled={readOnly}
                  style={{ width: '100%' }}
                  data-testid="targeting-countries-select"
                />
              )}
            </FilterField>
          </Form.Item>
          <Form.Item
            name={['rules', 'regions']}
            label={label('Regions', 'rules.regions')}
            extra="Checking a region targets all its countries and is saved as the region; a partly checked region is saved as its countries."
          >
            <FilterField<'values', string>
              itemsKey="values"
              anyText="any region"
              testId="targeting-regions"
              disabled={readOnly}
            >
              {(values, set) => (
                <CheckTree
                  testId="targeting-region-tree"
                  treeData={REGION_TREE}
                  checkedKeys={regionCheckedKeys(values)}
                  onToggle={(key, checked) => set(toggleRegion(values, key, checked))}
                  onClear={() => set([])}
                  chips={values.map(regionChip)}
                  onRemoveChip={(v) => set(toggleRegion(values, v, false))}
                  searchPlaceholder="Find a region or a country"
                  disabled={readOnly}
                  height={240}
                />
              )}
            </FilterField>
          </Form.Item>
          <Form.Item name={['rules', 'usStates']} label={label('US states', 'rules.usStates')}>
            <FilterField<'values', string>
              itemsKey="values"
              anyText="any state"
              testId="targeting-us-states"
              disabled={readOnly}
            >
              {(values, set) => (
                <Select
                  mode="multiple"
                  allowClear
                  showSearch={{ optionFilterProp: 'label' }}
                  placeholder="Any state"
                  options={stateOptions}
                  value={values}
                  onChange={set}
                  disabled={readOnly}
                  style={{ width: '100%' }}
                />
              )}
            </FilterField>
          </Form.Item>
          {codeField('cities')}
          {codeField('metros')}
          {codeField('postalCodes')}
        </>
      ),
    },
    {
      key: 'devices',
      label: tabLabel('Devices & platforms', rules, 'devices'),
      forceRender: true,
      children: (
        <>
          {checkFilter('devices', 'Devices', DEVICE_TYPES, 'any device')}
          {checkFilter('os', 'Operating systems', OPERATING_SYSTEMS, 'any operating system')}
          {checkFilter('browsers', 'Browsers', BROWSER_FAMILIES, 'any browser')}
          {checkFilter('tvFamilies', 'Smart-TV families', SMART_TV_FAMILIES, 'any TV family')}
        </>
      ),
    },
    {
      key: 'content',
      label: tabLabel('Content', rules, 'content'),
      forceRender: true,
      children: (
        <>
          <Form.Item
            name={['rules', 'iabCategories']}
            label={label('IAB content categories', 'rules.iabCategories')}
            extra="What the page, app or video is about: a request outside these categories is refused. Checking a top-level category covers all its sub-categories and is saved as that category alone."
          >
            <FilterField<'values', string>
              itemsKey="values"
              anyText="any content"
              testId="targeting-iab"
              disabled={readOnly}
            >
              {(values, set) => (
                <IabTree
                  values={values}
                  set={set}
                  testId="targeting-iab-tree"
                  searchPlaceholder="Find a category: sports, IAB17..."
                  height={340}
                  disabled={readOnly}
                />
              )}
            </FilterField>
          </Form.Item>
          <Form.Item
            name={['rules', 'blockedAdCategories']}
            label={label('Blocked ad categories', 'rules.blockedAdCategories')}
            extra={BLOCKED_AD_CATEGORIES_HELP}
          >
            <BlockedCategoriesField disabled={readOnly} />
          </Form.Item>
        </>
      ),
    },
    {
      key: 'keyvalues',
      label: tabLabel('Key-values', rules, 'keyvalues'),
      forceRender: true,
      children: codeField('keyValues'),
    },
    {
      key: 'lists',
      label: tabLabel('Lists & player', rules, 'lists'),
      forceRender: true,
      children: (
        <>
          {listField('applists', 'appLists', 'App lists', 'any app')}
          {listField('iplists', 'ipLists', 'IP lists', 'any address')}
          {v2v ? (
            listField('publists', 'pubLists', 'Publisher lists', 'any publisher')
          ) : (
            <Form.Item name={['rules', 'pubLists']} hidden>
              <Kept />
            </Form.Item>
          )}
          {v2v ? (
            listField('crelists', 'creLists', 'Creative lists', 'any creative')
          ) : (
            <Form.Item name={['rules', 'creLists']} hidden>
              <Kept />
            </Form.Item>
          )}
          <Form.Item
            name={['rules', 'playerSizes']}
            label={label('Player sizes', 'rules.playerSizes')}
            extra="Nothing ticked: any player size."
          >
            <Checkbox.Group
              options={PLAYER_SIZES.map((p) => ({ value: p.id, label: p.label }))}
              disabled={readOnly}
              data-testid="targeting-player-sizes"
            />
          </Form.Item>
        </>
      ),
    },
    {
      key: 'daypart',
      label: tabLabel('Day-parting', rules, 'daypart'),
      forceRender: true,
      children: (
        <Form.Item
          name={['rules', 'dayParting']}
          label={label('Day-parting', 'rules.dayParting')}
          rules={[
            {
              validator: async (_r, v: DayPartingValue | undefined) => {
                const problem = v ? dayPartingProblem(v) : null;
                if (problem) throw new Error(problem);
              },
            },
          ]}
        >
          <DayPartingField disabled={readOnly} />
        </Form.Item>
      ),
    },
  ];

  return (
    <>
      <NameStatusRow placeholder="e.g. US CTV prime time" message="Give the targeting a name" testId="targeting-name" />
      <Alert
        type="info"
        showIcon
        style={{ marginBottom: 8 }}
        title={<span data-testid="targeting-summary">{summarizeTargeting(rules)}</span>}
      />
      {!v2v && ((rules?.pubLists?.ids?.length ?? 0) > 0 || (rules?.creLists?.ids?.length ?? 0) > 0) && (
        <Typography.Paragraph type="secondary" style={{ fontSize: 12 }}>
          This targeting also uses publisher or creative lists, kept as they are (they are managed on V2V only).
        </Typography.Paragraph>
      )}
      <Tabs items={tabs} size="small" />
    </>
  );
}
