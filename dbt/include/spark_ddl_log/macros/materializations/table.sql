{#- table: one CREATE OR REPLACE TABLE ... AS SELECT (any file format, a view of that name included), never a drop
    first: readers see the old table or the new one, and a failing SELECT leaves the old one whole. -#}
{% materialization table, adapter='spark_ddl_log', supported_languages=['sql', 'python'] %}
  {%- set language = model['language'] -%}
  {%- set grant_config = config.get('grants') -%}
  {%- set old_relation = adapter.get_relation(database=database, schema=schema, identifier=model['alias']) -%}
  {%- set target_relation = api.Relation.create(identifier=model['alias'], schema=schema, database=database,
                                                type='table') -%}

  {{ run_hooks(pre_hooks) }}

  {%- if language == 'python' and old_relation is not none -%}
    {#- a Python model writes with saveAsTable, which cannot replace atomically: refused rather than dropped -#}
    {{ exceptions.raise_compiler_error("spark_ddl_log: Python models cannot replace " ~ old_relation.render()
                                       ~ " atomically; materialize it as SQL") }}
  {%- endif -%}

  {%- call statement('main', language=language) -%}
    {{ create_table_as(False, target_relation, compiled_code, language) }}
  {%- endcall -%}

  {% do apply_grants(target_relation, grant_config, should_revoke(old_relation, full_refresh_mode=True)) %}
  {% do persist_docs(target_relation, model) %}
  {% do persist_constraints(target_relation, model) %}

  {{ run_hooks(post_hooks) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
