import type { SyntheticApi, SyntheticField } from '../synthetic-api.ts';

/**
 * The synthetic API (bench/synthetic-api.ts) as Go types with the +kubebuilder markers equivalent to
 * op-gen's JSDoc markers, for controller-gen. Doc comments carry the same text as the TypeScript ones,
 * so the two CRDs can be compared field for field.
 */
export function renderGo(api: SyntheticApi): Map<string, string> {
  const dir = `api/${api.version}`;
  const files = new Map<string, string>();
  files.set(
    `${dir}/groupversion_info.go`,
    `// Package ${api.version} is a synthetic API for benchmarks.\n// +kubebuilder:object:generate=false\n// +groupName=${api.group}\npackage ${api.version}\n`,
  );
  for (const k of api.kinds) {
    const types: string[] = [];
    const spec: string[] = [];
    for (const f of k.fields) spec.push(...goField(f, types));
    const out = [
      `package ${api.version}`,
      '',
      'import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"',
      '',
      ...types,
      `// ${k.kind}Spec is the desired state.`,
      `type ${k.kind}Spec struct {`,
      ...spec,
      '}',
      '',
      `// ${k.kind}Status is the observed state.`,
      `type ${k.kind}Status struct {`,
      '\t// conditions of the object.',
      '\t// +listType=map',
      '\t// +listMapKey=type',
      '\t// +optional',
      '\tConditions []metav1.Condition `json:"conditions,omitempty"`',
      '\t// observedGeneration is the last generation reconciled.',
      '\t// +optional',
      '\tObservedGeneration int64 `json:"observedGeneration,omitempty"`',
      '\t// replicas observed.',
      '\t// +optional',
      '\tReplicas int32 `json:"replicas,omitempty"`',
      '}',
      '',
      `// ${k.kind} is a synthetic kind.`,
      '// +kubebuilder:object:root=true',
      '// +kubebuilder:subresource:status',
      '// +kubebuilder:printcolumn:name=Replicas,type=integer,JSONPath=.status.replicas',
      '// +kubebuilder:printcolumn:name=Age,type=date,JSONPath=.metadata.creationTimestamp',
      `type ${k.kind} struct {`,
      '\tmetav1.TypeMeta   `json:",inline"`',
      '\tmetav1.ObjectMeta `json:"metadata,omitempty"`',
      `\tSpec   ${k.kind}Spec   \`json:"spec"\``,
      `\tStatus ${k.kind}Status \`json:"status,omitempty"\``,
      '}',
      '',
    ];
    files.set(`${dir}/${k.kind.toLowerCase()}_types.go`, out.join('\n'));
  }
  return files;
}

function exported(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function tag(name: string, optional: boolean): string {
  return `\`json:"${name}${optional ? ',omitempty' : ''}"\``;
}

function goField(f: SyntheticField, types: string[]): string[] {
  const opt = f.optional ? ['\t// +optional'] : ['\t// +required'];
  switch (f.kind) {
    case 'boundedInt':
      return [
        `\t// ${f.name} is a bounded integer.`,
        `\t// +kubebuilder:validation:Minimum=${f.min}`,
        `\t// +kubebuilder:validation:Maximum=${f.max}`,
        ...opt,
        `\t${exported(f.name)} int32 ${tag(f.name, f.optional)}`,
      ];
    case 'pattern':
      return [
        `\t// ${f.name} is a DNS label.`,
        `\t// +kubebuilder:validation:Pattern=\`${f.pattern}\``,
        `\t// +kubebuilder:validation:MaxLength=${f.maxLength}`,
        ...opt,
        `\t${exported(f.name)} string ${tag(f.name, f.optional)}`,
      ];
    case 'enum':
      return [
        `\t// ${f.name} is one of a few modes.`,
        `\t// +kubebuilder:validation:Enum=${f.values.join(';')}`,
        ...opt,
        `\t${exported(f.name)} string ${tag(f.name, f.optional)}`,
      ];
    case 'listMap':
      types.push(
        `// ${f.itemType} is one entry of a keyed list.`,
        `type ${f.itemType} struct {`,
        '\t// name is the key.',
        '\t// +required',
        '\tName string `json:"name"`',
        '\t// weight of the entry.',
        '\t// +kubebuilder:validation:Minimum=0',
        '\t// +optional',
        '\tWeight int32 `json:"weight,omitempty"`',
        '}',
        '',
      );
      return [
        `\t// ${f.name} is a list keyed by name.`,
        '\t// +listType=map',
        '\t// +listMapKey=name',
        `\t// +kubebuilder:validation:MaxItems=${f.maxItems}`,
        ...opt,
        `\t${exported(f.name)} []${f.itemType} ${tag(f.name, f.optional)}`,
      ];
    case 'nested':
      types.push(
        `// ${f.typeName} groups settings.`,
        `type ${f.typeName} struct {`,
        '\t// labels to apply.',
        '\t// +optional',
        '\tLabels map[string]string `json:"labels,omitempty"`',
        '\t// count of things.',
        '\t// +kubebuilder:validation:Minimum=1',
        '\t// +required',
        '\tCount int32 `json:"count"`',
        '\t// note is free text.',
        '\t// +optional',
        '\tNote string `json:"note,omitempty"`',
        '}',
        '',
      );
      return [
        `\t// ${f.name} holds nested settings.`,
        ...opt,
        `\t${exported(f.name)} ${f.typeName} ${tag(f.name, f.optional)}`,
      ];
  }
}
