{#- incremental: dbt-spark's strategies (append, insert_overwrite static and dynamic, merge where the file format
    has it: dbt-spark refuses the rest clearly), with every rebuild (first run, a view of that name, --full-refresh)
    one CREATE OR REPLACE TABLE instead of a drop and a create. insert_overwrite runs the DDL log's atomic INSERT
    OVERWRITE in the mode dbt-spark sets (dynamic with partition_by). -#}
{% materialization incremental, adapter='spark_ddl_log', supported_languages=['sql'] -%}
  {%- set file_format = dbt_spark_validate_get_file_format(config.get('file_format', default='parquet')) -%}
  {%- set strategy = dbt_spark_validate_get_incremental_strategy(config.get('incremental_strategy') or 'append',
                                                                 file_format) -%}
  {%- set unique_key = config.get('unique_key', none) -%}
  {%- set partition_by = config.get('partition_by', none) -%}
  {%- set on_schema_change = incremental_validate_on_schema_change(config.get('on_schema_change'),
                                                                   default='ignore') -%}
  {%- set predicates = config.get('predicates', none) or config.get('incremental_predicates', none) -%}
  {%- set grant_config = config.get('grants') -%}
  {%- set existing_relation = load_relation(this) -%}
  {%- set tmp_relation = this.incorporate(path={"identifier": this.identifier ~ '__dbt_tmp'})
                             .include(database=false, schema=false) -%}

  {%- if strategy in ['insert_overwrite', 'microbatch'] and partition_by -%}
    {%- call statement() -%} set spark.sql.sources.partitionOverwriteMode = DYNAMIC {%- endcall -%}
  {%- endif -%}

  {{ run_hooks(pre_hooks) }}

  {%- if existing_relation is none or existing_relation.is_view or should_full_refresh() -%}
    {%- call statement('main') -%}
      {{ create_table_as(False, this, compiled_code) }}
    {%- endcall -%}
    {% do persist_constraints(this, model) %}
  {%- else -%}
    {%- call statement('create_tmp_relation') -%}
      {{ create_table_as(True, tmp_relation, compiled_code) }}
    {%- endcall -%}
    {%- do process_schema_changes(on_schema_change, tmp_relation, existing_relation) -%}
    {%- call statement('main') -%}
      {{ dbt_spark_get_incremental_sql(strategy, tmp_relation, this, existing_relation, unique_key, predicates) }}
    {%- endcall -%}
  {%- endif -%}

  {% do apply_grants(this, grant_config, should_revoke(existing_relation, full_refresh_mode)) %}
  {% do persist_docs(this, model) %}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [this]}) }}
{%- endmaterialization %}
