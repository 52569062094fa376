import { Checkbox, Form, InputNumber, Slider, Space, Typography } from 'antd';
import { type AuthUser } from '@adplane/shared';
import { rangeRule } from '../../resources/rangeRule.js';
import { FloorRulesEditor } from '../../components/FloorRulesEditor.js';
import { visibleOptions } from './profileForm.js';

/** Demand account options; post-bid and IVT settings appear only when the account has them, floor rules to the tenant itself. */
export function OptionsTab({ user, readOnly = false }: { user: AuthUser; readOnly?: boolean }) {
  const { postbid, ivt } = visibleOptions(user);
  return (
    <div className="profile-options">
      {postbid && (
        <>
          <Form.Item label="Post-bid scanned share of impressions (%)">
            <Space align="center" className="profile-postbid">
              <Form.Item name="postbidPercent" noStyle>
                <Slider
                  min={0}
                  max={100}
                  step={1}
                  className="profile-postbid-slider"
                  data-testid="profile-postbidPercent"
                />
              </Form.Item>
              {/* no min or max on the box: a share past 100 is refused in place with the range, never clamped */}
              <Form.Item name="postbidPercent" noStyle rules={[rangeRule(0, 100)]}>
                <InputNumber
                  step={1}
                  suffix="%"
                  className="profile-postbid-input"
                  data-testid="profile-postbidPercent-input"
                />
              </Form.Item>
            </Space>
          </Form.Item>
          <Form.Item name="setPostbidAll" valuePropName="checked">
            <Checkbox data-testid="profile-setPostbidAll">Apply post-bid scanning to all tags</Checkbox>
          </Form.Item>
        </>
      )}
      {ivt && (
        <>
          <Form.Item name="setCheckIVTAll" valuePropName="checked">
            <Checkbox data-testid="profile-setCheckIVTAll">Check all tags for invalid traffic (IVT)</Checkbox>
          </Form.Item>
          <Form.Item name="blockIVT" valuePropName="checked">
            <Checkbox data-testid="profile-blockIVT">Block invalid traffic</Checkbox>
          </Form.Item>
        </>
      )}
      <Form.Item name="delOldCreatives" valuePropName="checked">
        <Checkbox data-testid="profile-delOldCreatives">Delete old creatives automatically</Checkbox>
      </Form.Item>
      {user.managerId === null && (
        <Form.Item
          name="floorRules"
          label="Floor rules"
          extra="The floors of every channel without floor rules of its own: the most specific rule a request matches"
        >
          <FloorRulesEditor scope="account" readOnly={readOnly} />
        </Form.Item>
      )}
      {!postbid && !ivt && (
        <Typography.Paragraph type="secondary">
          Post-bid and IVT options are enabled for the account by an admin.
        </Typography.Paragraph>
      )}
    </div>
  );
}
