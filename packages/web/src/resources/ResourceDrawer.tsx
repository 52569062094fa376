import { Alert, Button, Drawer, Form, type FormInstance, Spin } from 'antd';
import { type ComponentType, type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { type DeliveryState, type ResourceDef } from '@adplane/shared';
import { notifyLoadError, notifySaveError } from '../errors/notify.js';
import { formSnapshot, useDiscardGuard } from './discardGuard.js';
import { applyFieldErrors, schemaFieldErrors, showFieldErrors } from './formErrors.js';
import { JumpLinks } from './JumpLinks.js';
import { inSentence } from './labels.js';
import { useLiveSchemaCheck } from './liveCheck.js';
import { ReadOnlyView, readOnlyFormProps } from './ReadOnlyView.js';
import { type ResourceApi, type ResourceRow } from './resourceApi.js';
import { DeliveryStatePanel } from './deliveryState.js';
import { AccountSignIns } from './AccountSignIns.js';
import { EntityHistory } from './EntityHistory.js';
import { RowStamps } from './RowStamps.js';
import { showsUsedBy, UsedBy } from './UsedBy.js';

export interface ResourceFormProps {
  form: FormInstance;
  /** The row being edited; null when creating. */
  row: ResourceRow | null;
  readOnly: boolean;
}

export interface DrawerState {
  open: boolean;
  /** null: a new row. */
  id: number | null;
}

/**
 * The create / edit / view drawer of every resource page. The page gives the form's fields; the
 * drawer loads the row, sends the form's values, and puts the server's field errors on the fields.
 */
export function ResourceDrawer(props: {
  def: ResourceDef;
  api: ResourceApi;
  state: DrawerState;
  readOnly: boolean;
  FormBody: ComponentType<ResourceFormProps>;
  defaults: () => Record<string, unknown>;
  /** Turn the form's values into the request body (defaults to the values as they are). */
  toBody?: (values: Record<string, unknown>, row: ResourceRow | null) => Record<string, unknown>;
  /** Turn a row into the form's values (defaults to the row as it is). */
  toForm?: (row: ResourceRow) => Record<string, unknown>;
  /** What shows under the row's delivery state beyond its reasons (ResourcePageProps `stateDetail`). */
  stateDetail?: (row: ResourceRow, state: DeliveryState) => ReactNode;
  width?: number;
  onClose: () => void;
  onSaved: (row: ResourceRow) => void;
}) {
  const { def, api, state, readOnly, FormBody } = props;
  const [form] = Form.useForm();
  const [row, setRow] = useState<ResourceRow | null>(null);
  const [loading, setLoading] = useState(false);
  const [saving, setSaving] = useState(false);
  const [unshown, setUnshown] = useState<string[]>([]);

  useEffect(() => {
    if (!state.open) return;
    setUnshown([]);
    form.resetFields();
    if (state.id === null) {
      setRow(null);
      form.setFieldsValue(props.defaults());
      return;
    }
    let active = true;
    setLoading(true);
    api
      .get(state.id)
      .then((r) => {
        if (!active) return;
        setRow(r);
        form.setFieldsValue(props.toForm ? props.toForm(r) : r);
      })
      .catch((error: unknown) => {
        notifyLoadError(error);
        props.onClose();
      })
      .finally(() => active && setLoading(false));
    return () => {
      active = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- reload only when another row is opened
  }, [state.open, state.id]);

  const save = async () => {
    let values: Record<string, unknown>;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    const body = props.toBody ? props.toBody({ ...values }, row) : values;
    const invalid = schemaFieldErrors(def.schema, body);
    if (invalid.length) {
      setUnshown(showFieldErrors(form, invalid));
      return;
    }
    setSaving(true);
    setUnshown([]);
    try {
      const saved = state.id === null ? await api.create(body) : await api.update(state.id, body);
      props.onSaved(saved);
    } catch (error) {
      setUnshown(applyFieldErrors(form, error));
      notifySaveError(error);
    } finally {
      setSaving(false);
    }
  };

  // Closing with changes asks first; the values the form was opened with are the baseline.
  const edited = useRef(false);
  const baseline = useRef<string | null>(null);
  useEffect(() => {
    if (!state.open || loading) return;
    baseline.current = formSnapshot(form.getFieldsValue(true));
    edited.current = false;
  }, [state.open, state.id, loading, form]);
  const requestClose = useDiscardGuard({
    open: state.open,
    isDirty: () => {
      if (readOnly || !edited.current) return false;
      const now = formSnapshot(form.getFieldsValue(true));
      return now === null || now !== baseline.current;
    },
    close: props.onClose,
  });
  const toBody = props.toBody;
  const liveCheck = useLiveSchemaCheck(
    form,
    useCallback(() => {
      try {
        const values = form.getFieldsValue() as Record<string, unknown>;
        return schemaFieldErrors(def.schema, toBody ? toBody({ ...values }, row) : values);
      } catch {
        return null;
      }
    }, [form, def.schema, toBody, row]),
  );

  const formRef = useRef<HTMLDivElement>(null);
  const readOnlyReason = row?.archived
    ? `This ${inSentence(def.label)} is archived: restore it from the list to change it.`
    : `You can look at this ${inSentence(def.label)} but not change it.`;
  const title = readOnly
    ? `${def.label}: ${row?.name ?? ''}`
    : state.id === null
      ? `New ${inSentence(def.label)}`
      : `Edit ${inSentence(def.label)}: ${row?.name ?? ''}`;
  return (
    <Drawer
      open={state.open}
      title={title}
      size={props.width ?? 720}
      onClose={requestClose}
      destroyOnHidden
      data-testid="resource-drawer"
      // Save and Cancel stay in view however long the form (the footer does not scroll with it).
      footer={
        <div className="form-footer" data-testid="resource-drawer-footer">
          {readOnly ? (
            <Button onClick={props.onClose} data-testid="resource-close">
              Close
            </Button>
          ) : (
            <>
              <Button onClick={() => requestClose()} data-testid="resource-cancel">
                Cancel
              </Button>
              <Button
                type="primary"
                loading={saving}
                disabled={loading}
                onClick={() => void save()}
                data-testid="resource-save"
              >
                {state.id === null ? 'Create' : 'Save'}
              </Button>
            </>
          )}
        </div>
      }
    >
      {loading ? (
        <Spin />
      ) : (
        <div className="form-with-jumps" ref={formRef}>
          <JumpLinks formRef={formRef} />
          <ReadOnlyView readOnly={readOnly} reason={readOnlyReason}>
            {row && (
              <DeliveryStatePanel
                kind={def.kind}
                id={row.id}
                stamp={row.updatedAt}
                detail={props.stateDetail && ((state) => props.stateDetail!(row, state))}
              />
            )}
            <Form
              form={form}
              layout="vertical"
              {...readOnlyFormProps(readOnly)}
              onFinish={() => void save()}
              onValuesChange={() => {
                edited.current = true;
              }}
              onFieldsChange={readOnly ? undefined : liveCheck}
              scrollToFirstError
            >
              {unshown.length > 0 && (
                <Alert
                  type="error"
                  showIcon
                  style={{ marginBottom: 16 }}
                  title="Some values are refused"
                  description={unshown.join('; ')}
                />
              )}
              <FormBody form={form} row={row} readOnly={readOnly} />
              {row && <RowStamps row={row} />}
            </Form>
            {row && showsUsedBy(def) && <UsedBy def={def} id={row.id} />}
            {row && <EntityHistory def={def} id={row.id} />}
            {row && <AccountSignIns def={def} id={row.id} />}
          </ReadOnlyView>
        </div>
      )}
    </Drawer>
  );
}
